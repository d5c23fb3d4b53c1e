#pragma once
/// \file memory_block.hpp
/// A contiguous run of a field's storage, what one MPI message can send without packing.

#include <karman/core/extents.hpp>

#include <vector>

namespace karman {

/// Elements [offset, offset + count) of a field's storage.
struct MemoryBlock {
  index_t offset = 0;  ///< first element
  index_t count = 0;   ///< number of elements

  friend bool operator==(const MemoryBlock& a, const MemoryBlock& b) {
    return a.offset == b.offset && a.count == b.count;
  }
};

/// Appends `block` to `blocks`, merging it into the last one when they touch.
inline void append_coalesced(std::vector<MemoryBlock>& blocks, MemoryBlock block) {
  if (block.count <= 0) return;
  if (!blocks.empty() && blocks.back().offset + blocks.back().count == block.offset) {
    blocks.back().count += block.count;
  } else {
    blocks.push_back(block);
  }
}

}  // namespace karman
