#include "command_line.hpp"

#include <karman/core/error.hpp>
#include <karman/io/input_file.hpp>

#include <algorithm>
#include <map>
#include <sstream>

namespace karman::app {
namespace {

/// Bytes a --config file may hold: far above any real one (a few kB of keys).
constexpr std::uintmax_t config_size_limit = 1 << 20;

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

/// Whether `text` is valid UTF-8 without NUL or other control bytes than tab, CR and LF.
bool is_text(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
      ++i;
      continue;
    }
    const int length = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (length == 0 || i + std::size_t(length) > text.size()) return false;
    for (int k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + std::size_t(k)]) & 0xc0) != 0x80) return false;
    }
    i += std::size_t(length);
  }
  return true;
}

/// A line as a message shows it: at most 40 characters.
std::string shown(const std::string& line) { return line.size() > 40 ? line.substr(0, 37) + "..." : line; }

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::vector<std::string> normalise_arguments(const CLI::App& app, const std::vector<std::string>& arguments) {
  const std::vector<std::string> names = subcommand_names(app);
  std::vector<std::string> config, rest;
  bool command_seen = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "--config") {
      if (i + 1 == arguments.size()) throw Error("--config needs a file name");
      config = {a, arguments[++i]};
      continue;
    }
    if (a.rfind("--config=", 0) == 0) {
      config = {a};
      continue;
    }
    if (!command_seen && !a.empty() && a[0] != '-') {
      if (std::find(names.begin(), names.end(), a) == names.end()) {
        const std::string close = closest_name(a, names);
        throw Error("unknown command '" + a + "'; " +
                    (close.empty() ? "the commands are " + joined(names) : "did you mean '" + close + "'?"));
      }
      command_seen = true;
    }
    rest.push_back(a);
  }
  config.insert(config.end(), rest.begin(), rest.end());
  return config;
}

std::string config_file(const std::vector<std::string>& arguments) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == "--config" && i + 1 < arguments.size()) return arguments[i + 1];
    if (arguments[i].rfind("--config=", 0) == 0) return arguments[i].substr(9);
  }
  return "";
}

void check_config_file(const CLI::App& app, const std::string& path) {
  const std::string where = "--config '" + path + "'";
  // A configuration is a page of keys; the limit stops /dev/zero or a mistaken data file early.
  const std::string text = io::read_input_file(path, config_size_limit, "--config");
  if (!is_text(text)) throw Error(where + ": not a text file (binary bytes); give a TOML/INI file");
  const std::vector<std::string> names = subcommand_names(app);
  std::map<std::string, int> seen;  // "section.key" -> line
  std::string section;
  std::istringstream lines(text);
  std::string raw;
  for (int number = 1; std::getline(lines, raw); ++number) {
    const std::string line = trim(raw);
    const std::string at = where + " line " + std::to_string(number) + ": ";
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']') throw Error(at + "'" + shown(line) + "' is not a [section]");
      section = trim(line.substr(1, line.size() - 2));
      if (std::find(names.begin(), names.end(), section) == names.end()) {
        const std::string close = closest_name(section, names);
        throw Error(
            at + "unknown section [" + section + "]; " +
            (close.empty() ? "the sections are the commands " + joined(names) : "did you mean [" + close + "]?"));
      }
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      throw Error(at + "'" + shown(line) + "' is neither 'key = value' nor '[section]'");
    }
    std::string key = trim(line.substr(0, equals));
    std::string command = section;
    if (command.empty()) {
      const auto dot = key.find('.');
      if (dot == std::string::npos) {
        throw Error(at + "key '" + shown(key) + "' outside a section; put it under [" + joined(names) +
                    "] (the command it belongs to)");
      }
      command = key.substr(0, dot);
      key = key.substr(dot + 1);
      if (std::find(names.begin(), names.end(), command) == names.end()) {
        throw Error(at + "unknown command '" + command + "' in key '" + shown(line.substr(0, equals)) + "'");
      }
    }
    if (key.empty() || trim(line.substr(equals + 1)).empty())
      throw Error(at + "'" + shown(line) + "' has no key or value");
    const CLI::App* sub = app.get_subcommand(command);
    const CLI::Option* option = sub->get_option_no_throw("--" + key);
    if (option == nullptr || key == "help" || key == "config") {
      std::vector<std::string> keys;
      for (const CLI::Option* o : sub->get_options()) {
        for (const auto& n : o->get_lnames()) {
          if (n != "help") keys.push_back(n);
        }
      }
      const std::string close = closest_name(key, keys);
      throw Error(at + "unknown key '" + shown(key) + "' for " + command + "; " +
                  (close.empty() ? "see karman " + command + " --help" : "did you mean '" + close + "'?"));
    }
    const auto [previous, inserted] = seen.emplace(command + "." + key, number);
    if (!inserted) {
      throw Error(at + "key '" + key + "' set again (first on line " + std::to_string(previous->second) +
                  "); give each key once");
    }
  }
}

}  // namespace karman::app
