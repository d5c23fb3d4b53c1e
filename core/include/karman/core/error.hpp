#pragma once
/// \file error.hpp
/// User-facing errors: what was wrong, the value, and what would have been accepted.

#include <sstream>
#include <stdexcept>
#include <string>

namespace karman {

/// Bad input from a user (sizes, names, parameters). `main` catches it, prints it, exits non-zero.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws karman::Error "where: name = value out of range [lo, hi]" unless lo <= value <= hi.
template <class T>
void require_in_range(const char* where, const char* name, T value, T lo, T hi) {
  if (!(value >= lo && value <= hi)) {
    std::ostringstream msg;
    msg << where << ": " << name << " = " << value << " out of range [" << lo << ", " << hi << "]";
    throw Error(msg.str());
  }
}

}  // namespace karman
