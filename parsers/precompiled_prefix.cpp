#include "parsers/precompiled_prefix.h"

#include <map>
#include <set>
#include <sstream>

namespace parsers {

PrecompiledPrefix PrefixBeside(const std::filesystem::path &header, CompilerFamily family) {
  return {.header = header,
          .precompiled = header.string() + (family == CompilerFamily::kGcc ? ".gch" : ".pch")};
}

bool IsLinkArgument(const std::string &argument) {
  return argument == "-shared" || argument.starts_with("-l") || argument.starts_with("-L") ||
         argument.starts_with("-Wl,");
}

std::vector<std::string> PrecompileCommand(const std::vector<std::string> &compile,
                                           const PrecompiledPrefix &prefix, CompilerFamily family,
                                           bool instantiate_templates) {
  std::vector<std::string> argv;
  for (std::size_t i = 0; i < compile.size(); ++i) {
    const std::string &argument = compile[i];
    if (i > 0 && IsLinkArgument(argument))
      continue;
    if (argument == prefix.header.string())
      argv.insert(argv.end(), {"-x", "c++-header"});
    argv.push_back(argument);
  }
  if (instantiate_templates && family == CompilerFamily::kClang && !argv.empty())
    argv.insert(argv.begin() + 1, "-fpch-instantiate-templates");
  return argv;
}

std::string LeadingIncludeBlock(const std::string &text) {
  std::istringstream lines(text);
  std::string line, block;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0)
      continue; // comments and blank lines do not change what the prefix declares
    if (line.compare(first, 8, "#include") != 0)
      break;
    block += line + "\n";
  }
  return block.find("#include") == std::string::npos ? "" : block;
}

std::string IncludedHeaders(const std::string &text) {
  std::istringstream lines(text);
  std::string line, block;
  std::set<std::string> seen;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 10, "#include <") != 0)
      continue;
    const std::string header = line.substr(first);
    if (seen.insert(header).second)
      block += header + "\n";
  }
  return block;
}

std::string HoistableDirectives(const std::string &text) {
  std::istringstream lines(text);
  std::string line, block;
  std::map<std::string, std::string> definitions;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '#')
      continue;
    const auto name_start = line.find_first_not_of(" \t", first + 1);
    if (name_start == std::string::npos)
      continue;
    const std::string directive =
        line.substr(name_start, line.find_first_of(" \t<\"", name_start) - name_start);
    if (directive == "define") {
      if (!line.empty() && line.back() == '\\')
        return ""; // a continued macro: keep it simple, do not hoist
      const auto name =
          line.substr(name_start + 6,
                      line.find_first_of("( \t", line.find_first_not_of(" \t", name_start + 6)) -
                          name_start - 6);
      const auto [known, inserted] = definitions.try_emplace(name, line.substr(first));
      if (!inserted && known->second != line.substr(first))
        return ""; // redefined differently: the order of definitions matters
      block += line.substr(first) + "\n";
    } else if (directive == "include") {
      if (line.find('<', name_start) == std::string::npos)
        return "";
      block += line.substr(first) + "\n";
    } else if (directive != "pragma" && directive != "line") {
      return ""; // #if, #ifdef, #else, #endif, #undef, #error...: order matters
    }
  }
  return block.find("#include") == std::string::npos ? "" : block;
}

} // namespace parsers
