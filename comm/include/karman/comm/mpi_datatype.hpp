#pragma once
/// \file mpi_datatype.hpp
/// The MPI datatype of a field's value type, so messages count values, not bytes.

#include <mpi.h>

#include <cstdint>
#include <type_traits>

namespace karman::comm {

/// MPI datatype matching the arithmetic type T.
template <class T>
MPI_Datatype mpi_datatype() {
  static_assert(std::is_arithmetic_v<T>, "karman::comm::mpi_datatype: T must be an arithmetic type");
  if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, long double>)
    return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>)
    return MPI_CXX_BOOL;
  else if constexpr (std::is_same_v<T, char>)
    return MPI_CHAR;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1)
      return MPI_INT8_T;
    else if constexpr (sizeof(T) == 2)
      return MPI_INT16_T;
    else if constexpr (sizeof(T) == 4)
      return MPI_INT32_T;
    else
      return MPI_INT64_T;
  } else {
    if constexpr (sizeof(T) == 1)
      return MPI_UINT8_T;
    else if constexpr (sizeof(T) == 2)
      return MPI_UINT16_T;
    else if constexpr (sizeof(T) == 4)
      return MPI_UINT32_T;
    else
      return MPI_UINT64_T;
  }
}

}  // namespace karman::comm
