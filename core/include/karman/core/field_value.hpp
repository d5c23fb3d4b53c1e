#pragma once
/// \file field_value.hpp
/// Which types a Field may store: the arithmetic types (FP16 populations are std::uint16_t
/// words, float16.hpp) and Kokkos' half precision.

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace karman {

/// True for the types a Field stores (const-qualified ones too, for read-only fields): every
/// arithmetic type and `Kokkos::Experimental::half_t`. Kokkos 3.4 and 4.x both name it so; on
/// a backend without native half precision it is `float` (KOKKOS_HALF_T_IS_FLOAT), storage
/// then not halved, else a 16-bit class that is not arithmetic.
template <class T>
struct is_field_value : std::bool_constant<std::is_arithmetic_v<std::remove_const_t<T>> ||
                                           std::is_same_v<std::remove_const_t<T>, Kokkos::Experimental::half_t>> {};

/// Shorthand for is_field_value<T>::value.
template <class T>
inline constexpr bool is_field_value_v = is_field_value<T>::value;

}  // namespace karman
