#pragma once
// Shared by the tests that check refusals: the call throws karman::Error, and its message names
// what was wrong.
#include <karman/core/error.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace karman::test {

/// Runs `f`, expecting a karman::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no karman::Error thrown";
  } catch (const Error& e) {
    for (const char* part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

/// The message of the karman::Error `action` throws, or "" (and a test failure) when it throws none.
template <class Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no karman::Error thrown";
  return "";
}

}  // namespace karman::test
