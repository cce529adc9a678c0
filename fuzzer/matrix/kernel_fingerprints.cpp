#include "fuzzer/matrix/kernel_fingerprints.h"

#include "fuzzer/matrix/warnings.h"
#include "support/sha256.h"
#include "support/text_file.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace fuzzer::matrix {
namespace {

constexpr std::string_view kExternC = "extern \"C\"";

// The identifier just before the first '(' of a signature.
std::string FunctionName(std::string_view signature) {
  const auto paren = signature.find('(');
  if (paren == std::string_view::npos)
    return "";
  std::size_t end = paren;
  while (end > 0 && std::isspace(static_cast<unsigned char>(signature[end - 1])))
    --end;
  std::size_t begin = end;
  while (begin > 0 && support::IsIdentifierChar(signature[begin - 1]))
    --begin;
  return std::string(signature.substr(begin, end - begin));
}

// Whitespace runs become one space: a re-indented kernel is the same kernel.
std::string CollapseSpaces(std::string_view text) {
  std::string collapsed;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !collapsed.empty();
      continue;
    }
    if (space)
      collapsed += ' ';
    space = false;
    collapsed += c;
  }
  return collapsed;
}

std::vector<std::string> Declarations(std::string_view body) {
  // TYPE NAME followed by = ; [ { or a loop's TYPE NAME = ...; the type may be qualified,
  // templated, a pointer or a reference.
  static const std::regex declaration(
      R"re((?:^|[;{}(]\s*)((?:(?:const|static|constexpr|volatile|alignas\(\d+\))\s+)*))re"
      R"re(([A-Za-z_][\w:]*(?:<[^;=(){}]*>)?(?:\s*[*&]+)?)\s+([*&]*)([A-Za-z_]\w*)\s*(?:=|;|\[|\{))re");
  static const std::set<std::string> kNotTypes = {"return", "if",     "else",   "for",    "while",
                                                  "case",   "goto",   "delete", "new",    "throw",
                                                  "do",     "switch", "using",  "typedef"};
  std::set<std::string> found;
  const std::string text(body);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), declaration);
       it != std::sregex_iterator(); ++it) {
    const std::string type = CollapseSpaces((*it)[2].str());
    if (kNotTypes.contains(type))
      continue;
    found.insert(NameShape(CollapseSpaces((*it)[1].str() + type + (*it)[3].str())) + " " +
                 NameShape((*it)[4].str()));
  }
  return {found.begin(), found.end()};
}

} // namespace

std::vector<KernelFingerprint> FingerprintKernels(std::string_view source) {
  std::vector<KernelFingerprint> kernels;
  std::size_t at = 0;
  while (at < source.size()) {
    const std::size_t line_end = std::min(source.find('\n', at), source.size());
    if (!source.substr(at).starts_with(kExternC)) {
      at = line_end + 1;
      continue;
    }
    // The signature runs to the body's '{', or to ';' for a declaration.
    const std::size_t stop = source.find_first_of("{;", at);
    if (stop == std::string_view::npos)
      break;
    if (source[stop] == ';') {
      at = stop + 1;
      continue;
    }
    int depth = 0;
    std::size_t end = stop;
    for (; end < source.size(); ++end) {
      depth += source[end] == '{';
      depth -= source[end] == '}';
      if (depth == 0)
        break;
    }
    const std::string_view signature = source.substr(at, stop - at);
    const std::string_view body = source.substr(stop, end + 1 - stop);
    const std::string shaped = NameShape(CollapseSpaces(source.substr(at, end + 1 - at)));
    kernels.push_back({.name = NameShape(FunctionName(signature)),
                       .fingerprint = support::Sha256Hex(shaped).substr(0, 16),
                       .declarations = Declarations(body)});
    at = end + 1;
  }
  return kernels;
}

CodegenDelta CompareCodegen(const std::vector<KernelFingerprint> &baseline,
                            const std::vector<KernelFingerprint> &candidate) {
  CodegenDelta delta{.baseline_kernels = baseline.size(), .candidate_kernels = candidate.size()};
  std::multiset<std::string> unmatched;
  for (const auto &kernel : baseline)
    unmatched.insert(kernel.fingerprint);
  for (const auto &kernel : candidate) {
    if (const auto twin = unmatched.find(kernel.fingerprint); twin != unmatched.end())
      unmatched.erase(twin);
    else
      delta.changed_kernels.push_back(kernel.name);
  }
  // Declarations by kernel name: kernels of one name are pooled, since their order may move.
  auto declared = [](const std::vector<KernelFingerprint> &kernels) {
    std::set<std::string> all;
    for (const auto &kernel : kernels)
      for (const auto &declaration : kernel.declarations)
        all.insert(kernel.name + ": " + declaration);
    return all;
  };
  const auto before = declared(baseline);
  const auto after = declared(candidate);
  std::ranges::set_difference(after, before, std::back_inserter(delta.added_declarations));
  std::ranges::set_difference(before, after, std::back_inserter(delta.removed_declarations));
  return delta;
}

} // namespace fuzzer::matrix
