#pragma once
/// \file case_commands.hpp
/// Registers the case subcommands (cavity, channel, taylor-green, cylinder, porous) on the karman app.

#include <karman/comm/ranks.hpp>

#include <CLI/CLI.hpp>

namespace karman::app {

/// Adds cavity, channel, taylor-green and cylinder; a chosen subcommand runs from its callback
/// during parse and stores its exit code in `exit_code`.
void add_case_commands(CLI::App& app, const comm::Ranks& ranks, int& exit_code);

/// Adds cylinder (cylinder_command.cpp), as add_case_commands does the others.
void add_cylinder_command(CLI::App& app, const comm::Ranks& ranks, int& exit_code);

/// Adds porous (porous_command.cpp): flow through a porous sample on the block-sparse grid.
void add_porous_command(CLI::App& app, const comm::Ranks& ranks, int& exit_code);

}  // namespace karman::app
