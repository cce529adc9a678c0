#include "reducers/source/compile_log.h"

#include <regex>
#include <sstream>

namespace reducers {
namespace {

std::string WithoutTimestamp(const std::string &line) {
  static const std::regex timestamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z? ?)");
  return std::regex_replace(line, timestamp, "", std::regex_constants::format_first_only);
}

std::string Trim(const std::string &text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos)
    return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Where the compiler's output ends in a log: the traceback or pytest's report goes on after it.
bool EndsOutput(const std::string &line) {
  static const std::regex end(
      R"(^(Traceback \(most recent call last\)|Set TORCHDYNAMO_VERBOSE|You can suppress this exception|To execute this test|_{5,}|={5,}|FAILED |E   |During handling of the above exception))");
  return std::regex_search(line, end);
}

} // namespace

std::vector<std::string> SplitCommandLine(const std::string &line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size())
        word += line[++i];
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word)
        words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word)
    words.push_back(std::move(word));
  return words;
}

std::optional<LoggedCompileError> FindCompileError(const std::string &log) {
  std::vector<std::string> lines;
  std::istringstream stream(log);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(WithoutTimestamp(line));
  std::optional<LoggedCompileError> found;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("C++ compile error") == std::string::npos)
      continue;
    std::size_t at = i + 1;
    while (at < lines.size() && Trim(lines[at]) != "Command:")
      ++at;
    if (at + 1 >= lines.size())
      continue;
    std::size_t command_line = at + 1;
    while (command_line < lines.size() && Trim(lines[command_line]).empty())
      ++command_line;
    if (command_line >= lines.size())
      continue;
    LoggedCompileError error;
    error.command = SplitCommandLine(Trim(lines[command_line]));
    std::size_t output = command_line + 1;
    while (output < lines.size() && Trim(lines[output]) != "Output:")
      ++output;
    for (std::size_t k = output + 1; k < lines.size() && !EndsOutput(lines[k]); ++k)
      error.output += lines[k] + "\n";
    if (!error.command.empty())
      found = std::move(error);
  }
  return found;
}

} // namespace reducers
