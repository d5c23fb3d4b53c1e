#pragma once
/// \file command_line.hpp
/// What CLI11 leaves to us: `--config` after the subcommand, a misspelled
/// subcommand answered with a suggestion, and a config file checked line by line before any
/// option is applied (unknown sections and keys, duplicates, malformed lines, binary files).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace karman::app {

/// The arguments after the program name with every `--config FILE` (or `--config=FILE`) moved in
/// front of the subcommand, where CLI11 reads it. Throws karman::Error for a first word that
/// names no subcommand of `app` ("unknown command 'cavitee'; did you mean 'cavity'?") and for
/// `--config` without a file.
std::vector<std::string> normalise_arguments(const CLI::App& app, const std::vector<std::string>& arguments);

/// The config file named by `arguments` (as normalise_arguments returns them), or "".
std::string config_file(const std::vector<std::string>& arguments);

/// Checks a config file before CLI11 applies it: it must exist and be a readable text file
/// (UTF-8, no NUL) whose lines are blank, comments (# or ;), `[section]` naming a subcommand of
/// `app`, or `key = value` with a key that is a long option of that subcommand, each key once.
/// Throws karman::Error naming the file, the line and what would be accepted.
void check_config_file(const CLI::App& app, const std::string& path);

/// The name among `candidates` closest to `word` by edit distance, or "" when none is close.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace karman::app
