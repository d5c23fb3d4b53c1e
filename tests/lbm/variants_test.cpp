// The variant registry: names map to the right types, every unknown name is refused with the
// accepted ones, and the factory builds exactly the variants the build compiled.
#include <karman/core/error.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace karman::lbm {
namespace {

template <class List>
void expect_names_round_trip() {
  const auto names = List::names();
  ASSERT_EQ(int(names.size()), List::size);
  for (int i = 0; i < List::size; ++i) {
    EXPECT_EQ(List::index_of(names[i]), i) << names[i];
    // Dispatch reaches the type whose own name is the one asked for.
    const std::string reached =
        dispatch<List>(names[i], [](auto t) { return std::string(VariantName<tag_type<decltype(t)>>::value); });
    EXPECT_EQ(reached, names[i]);
  }
}

TEST(VariantRegistry, NamesRoundTripThroughDispatch) {
  expect_names_round_trip<Lattices>();
  expect_names_round_trip<Precisions>();
  expect_names_round_trip<Layouts>();
  expect_names_round_trip<Collisions>();
  expect_names_round_trip<Patterns>();
}

TEST(VariantRegistry, NamesMapToTypes) {
  static_assert(std::is_same_v<type_at_t<Lattices, Lattices::index_of("d3q19")>, D3Q19>);
  static_assert(std::is_same_v<type_at_t<Precisions, Precisions::index_of("float")>, float>);
  static_assert(std::is_same_v<type_at_t<Layouts, Layouts::index_of("csoa")>, CSoADefault>);
  static_assert(type_at_t<Patterns, Patterns::index_of("aa")>::value == Pattern::aa);
  EXPECT_EQ(lattice_populations("d3q27"), 27);
  EXPECT_EQ(lattice_dimension("d2q9"), 2);
  EXPECT_EQ(precision_bytes("double"), 8);
  static_assert(std::is_same_v<type_at_t<Precisions, Precisions::index_of("fp16c")>, FP16C>);
  EXPECT_EQ(precision_bytes("fp16s"), 2);
  EXPECT_EQ(precision_bytes("fp16c"), 2);
}

// float and double store themselves; the FP16 precisions store f - w_i and decode it back.
TEST(Precision, WeightShiftOnlyForFloat16Storage) {
  static_assert(std::is_same_v<storage_t<float>, float> && std::is_same_v<compute_t<double>, double>);
  static_assert(std::is_same_v<storage_t<FP16S>, std::uint16_t> && std::is_same_v<compute_t<FP16C>, float>);
  for (int q = 0; q < D3Q19::Q; ++q) {
    const float w = float(D3Q19::w(q));
    const float f = w * 1.01f;
    const auto round_trip = [&](auto precision) {
      using P = tag_type<decltype(precision)>;
      return decode_population<D3Q19, P>(encode_population<D3Q19, P>(f, q), q);
    };
    EXPECT_EQ(round_trip(TypeTag<float>{}), f);
    // At rest every population is its weight: the stored deviation is an exact zero.
    EXPECT_EQ((encode_population<D3Q19, FP16S>(w, q)), 0);
    EXPECT_EQ((encode_population<D3Q19, FP16C>(w, q)), 0);
    EXPECT_EQ((decode_population<D3Q19, FP16C>(0, q)), w);
    // The deviation f - w = 0.01 w keeps 11 or 12 significant bits, not those of f itself.
    EXPECT_NEAR(round_trip(TypeTag<FP16S>{}), f, 0.01f * w * 0x1p-10f);
    EXPECT_NEAR(round_trip(TypeTag<FP16C>{}), f, 0.01f * w * 0x1p-11f);
  }
}

template <class List>
void expect_refused(const std::string& name) {
  EXPECT_EQ(List::index_of(name), -1);
  try {
    dispatch<List>(name, [](auto) { return 0; });
    ADD_FAILURE() << name << " was dispatched";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'" + name + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(accepted_names<List>()), std::string::npos) << message;
  }
}

TEST(VariantRegistry, UnknownNamesAreRefused) {
  // Near misses of real names: a prefix, a different case, an empty string.
  for (const char* name : {"d3q", "D3Q19", "", "d3q15"}) expect_refused<Lattices>(name);
  for (const char* name : {"half", "Float", "fp64"}) expect_refused<Precisions>(name);
  for (const char* name : {"so", "csoa64", "disagg"}) expect_refused<Layouts>(name);
  for (const char* name : {"acm", "BGK", "MRT"}) expect_refused<Collisions>(name);
  for (const char* name : {"ba", "a"}) expect_refused<Patterns>(name);
}

SolverSetup small_cavity(const Variant& v) {
  cases::CavityParams p;
  p.n = 8;
  p.reynolds = 10;
  return cases::cavity_setup(p, v);
}

// Names are checked where they are set: a Variant never holds an unknown one, so the factory
// cannot meet one; a failed assignment leaves the old choice in place.
TEST(VariantRegistry, VariantRefusesUnknownNamesWhenSet) {
  Variant v{"d2q9", "double", "soa", "bgk", "ab"};
  EXPECT_THROW(v.lattice = "nonsense", Error);
  EXPECT_THROW(v.precision = "nonsense", Error);
  EXPECT_THROW(v.layout = std::string("nonsense"), Error);
  EXPECT_THROW(v.collision = "nonsense", Error);
  EXPECT_THROW(v.pattern = std::string_view("nonsense"), Error);
  EXPECT_EQ(v.lattice, "d2q9");
  EXPECT_EQ(v.pattern, "ab");
  EXPECT_NO_THROW(make_solver(small_cavity(v)));
  try {
    v.layout = "sao";
    ADD_FAILURE() << "sao accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown layout 'sao'; accepted: aos, soa, csoa, disaggregated");
  }
}

// A choice knows its name and its type: dispatch on it reaches the type it was named for.
TEST(VariantRegistry, ChoiceDispatchesToItsType) {
  const PrecisionChoice p = "fp16c";
  EXPECT_EQ(p.name(), "fp16c");
  EXPECT_EQ(p.index(), Precisions::index_of("fp16c"));
  EXPECT_TRUE(dispatch<Precisions>(p, [](auto t) { return std::is_same_v<tag_type<decltype(t)>, FP16C>; }));
  const LatticeChoice l = std::string("d3q27");
  EXPECT_EQ(dispatch<Lattices>(l, [](auto t) { return tag_type<decltype(t)>::Q; }), 27);
  EXPECT_EQ(lattice_dimension(l), 3);  // reads as its name where a name is taken
  EXPECT_NE(l, LatticeChoice("d3q19"));
}

// A collision on a lattice it is not defined for is refused by the factory, naming the ones
// the lattice accepts, before anything is built.
TEST(VariantRegistry, FactoryRefusesCollisionsOutsideTheirLattices) {
  for (auto [lattice, collision, accepted] :
       {std::tuple{"d3q19", "cm", "bgk, trt, mrt"}, std::tuple{"d3q27", "mrt", "bgk, trt, cm"}}) {
    cases::CavityParams p;
    p.dim = 3;
    p.n = 6;
    p.reynolds = 10;
    try {
      make_solver(cases::cavity_setup(p, Variant{lattice, "double", "soa", collision, "ab"}));
      ADD_FAILURE() << collision << " accepted on " << lattice;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("accepted for ") + lattice + ": " + accepted), std::string::npos)
          << e.what();
    }
  }
}

TEST(VariantRegistry, FactoryBuildsEveryCompiledVariantAndNothingElse) {
  for (const auto& lattice : {"d2q9"}) {
    for (const auto& precision : Precisions::names()) {
      for (const auto& layout : Layouts::names()) {
        const Variant v{lattice, precision, layout, "bgk", "ab"};
        if (is_compiled(lattice, precision, layout)) {
          const auto solver = make_solver(small_cavity(v));
          EXPECT_EQ(solver->description(), std::string(lattice) + "/" + precision + "/" + layout + "/bgk/ab");
        } else {
          EXPECT_THROW(make_solver(small_cavity(v)), Error) << precision << " " << layout;
        }
      }
    }
  }
}

}  // namespace
}  // namespace karman::lbm
