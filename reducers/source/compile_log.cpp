#include "reducers/source/compile_log.h"

#include "support/text_file.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

namespace reducers {
namespace {

// One line of a log as the program printed it, with what CI services and pytest add taken off.
struct LogLine {
  std::string text;
  bool pytest_report = false; // an "E   " line of pytest's failure report
};

LogLine Clean(std::string line) {
  static const std::regex ansi(R"(\x1b\[[0-9;?]*[A-Za-z])");
  // GitHub Actions: "2026-11-25T10:00:00.1234567Z "; GitLab (FF_TIMESTAMPS): the same, then the
  // stream ("00O ", "01E ", "00O+ " for a continued line).
  static const std::regex stamp(
      R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?( [0-9a-fA-F]{2}[OE]\+?)? ?)");
  static const std::regex xdist(R"(^\[gw\d+\] )");
  static const std::regex report(R"(^E(   |$))");
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  if (line.find('\x1b') != std::string::npos)
    line = std::regex_replace(line, ansi, "");
  const auto once = std::regex_constants::format_first_only;
  if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])))
    line = std::regex_replace(line, stamp, "", once);
  if (line.starts_with("[gw"))
    line = std::regex_replace(line, xdist, "", once);
  LogLine clean;
  clean.pytest_report = std::regex_search(line, report);
  clean.text = clean.pytest_report ? line.substr(std::min<std::size_t>(line.size(), 1)) : line;
  return clean;
}

// Where the compiler's output ends in a log: the traceback, unittest's or pytest's report goes on
// after it.
bool EndsOutput(const std::string &line) {
  static const std::regex end(
      R"(^(Traceback \(most recent call last\)|Set TORCHDYNAMO_VERBOSE|You can suppress this exception|To execute this test|_{5,}|={5,}|-{5,}|FAILED |Ran \d+ tests? in|During handling of the above exception|The above exception was the direct cause))");
  return std::regex_search(line, end);
}

// A report line without pytest's indent: the "E" is gone, and so is the indent its "Command:"
// line had (pytest indents the exception text as deep as the raising frame).
std::string Unindented(const LogLine &line, std::size_t indent) {
  if (!line.pytest_report)
    return line.text;
  const auto spaces = line.text.find_first_not_of(' ');
  return line.text.substr(std::min({indent, spaces, line.text.size()}));
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
  std::vector<LogLine> lines;
  std::istringstream stream(log);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(Clean(std::move(line)));
  std::optional<LoggedCompileError> found;
  std::set<std::pair<std::vector<std::string>, std::string>> seen;
  std::size_t searched_to = 0; // a "Command:" belongs to the first "C++ compile error" before it
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i < searched_to || lines[i].text.find("C++ compile error") == std::string::npos)
      continue;
    std::size_t at = i + 1;
    while (at < lines.size() && support::Trim(lines[at].text) != "Command:")
      ++at;
    if (at + 1 >= lines.size())
      continue;
    // In pytest's report the exception text is a block of "E" lines: it ends where they do.
    const bool report = lines[at].pytest_report;
    const std::size_t indent = lines[at].text.find_first_not_of(' ');
    const auto inside = [&](std::size_t k) {
      return k < lines.size() && lines[k].pytest_report == report;
    };
    std::size_t command_line = at + 1;
    while (inside(command_line) && support::Trim(lines[command_line].text).empty())
      ++command_line;
    if (!inside(command_line))
      continue;
    searched_to = command_line + 1;
    LoggedCompileError error;
    error.command = SplitCommandLine(support::Trim(lines[command_line].text));
    error.line = at + 1;
    std::size_t output = command_line + 1;
    while (inside(output) && support::Trim(lines[output].text) != "Output:")
      ++output;
    for (std::size_t k = output + 1; inside(k); ++k) {
      const std::string text = Unindented(lines[k], indent);
      if (EndsOutput(text))
        break;
      error.output += text + "\n";
    }
    while (error.output.ends_with("\n\n")) // the blank lines before the traceback goes on
      error.output.pop_back();
    if (error.command.empty())
      continue;
    seen.insert({error.command, error.output});
    found = std::move(error);
  }
  if (found)
    found->errors_in_log = seen.size();
  return found;
}

} // namespace reducers
