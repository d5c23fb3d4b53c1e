#pragma once
/// \file hdf5_handle.hpp
/// HDF5 identifiers closed by scope, failures as karman::Error, and HDF5's own error printing
/// turned off (its stack of ~45 lines would bury the one line that says what went wrong).

#include <karman/core/error.hpp>

#include <hdf5.h>

#include <string>

namespace karman::detail {

/// An HDF5 identifier closed when it goes out of scope; a failed call throws at once.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& failure) : m_id(id), m_close(close) {
    if (id < 0) throw Error(failure);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (m_id >= 0) m_close(m_id);
  }
  hid_t get() const { return m_id; }
  /// Closes now and reports failure: closing a file is where HDF5 flushes it.
  void close(const std::string& failure) {
    const herr_t status = m_close(m_id);
    m_id = -1;
    if (status < 0) throw Error(failure);
  }

 private:
  hid_t m_id;
  herr_t (*m_close)(hid_t);
};

/// Throws karman::Error(failure) when an HDF5 call returned a negative status.
inline void check(herr_t status, const std::string& failure) {
  if (status < 0) throw Error(failure);
}

/// Stops HDF5 from printing its error stack; our messages say what failed and where.
inline void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace karman::detail
