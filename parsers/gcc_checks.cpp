#include "parsers/gcc_checks.h"

#include <array>
#include <regex>

namespace parsers {
namespace {

// gcc's quotes are typographic (‘int x’, several bytes each in UTF-8) or plain ('int x'),
// depending on the locale.
#define Q "(?:\u2018|')(.+?)(?:\u2019|')"

const std::array kGccChecks = {
    GccCheck{"redeclaration of " Q, "redefinition"},
    GccCheck{"redefinition of " Q, "redefinition"},
    GccCheck{"redefinition of default argument for " Q, "conflicting-specifier"},
    GccCheck{"conflicting declaration " Q, "conflicting-types"},
    GccCheck{"conflicting declaration of C function " Q, "conflicting-linkage"},
    GccCheck{"conflicting C language linkage declaration " Q, "conflicting-linkage"},
    GccCheck{Q " conflicts with a previous declaration", "conflicting-linkage"},
    GccCheck{Q " was declared .extern. and later .static.", "conflicting-linkage"},
    GccCheck{"ambiguating new declaration of " Q, "return-type-only"},
    GccCheck{Q " redeclared as different kind of (entity|symbol)", "different-kind-of-symbol"},
    GccCheck{"declaration of " Q " shadows a parameter", "variable-redeclared"},
    GccCheck{Q " cannot be overloaded with " Q, "duplicate-member"},
    GccCheck{"redeclaration " Q " differs in .(constexpr|consteval|constinit). .*",
             "conflicting-specifier"},
    GccCheck{"declaration of " Q " has a different exception specifier", "conflicting-specifier"},
    GccCheck{"(non-)?thread-local declaration of " Q " follows .*", "conflicting-specifier"},
    GccCheck{Q " redeclared with different access", "conflicting-specifier"},
    GccCheck{"declaration of template parameter " Q " shadows template parameter",
             "template-parameter-shadowed"},
    GccCheck{"redeclared here as " Q, "template-redeclared-differently"},
};

#undef Q

// ‘float* in_out_ptr2’ -> (in_out_ptr2, float*); ‘struct S’ -> (S, struct).
std::pair<std::string, std::string> NameAndType(const std::string &declaration) {
  static const std::regex trailing_name(R"(^(.*?)\s*([A-Za-z_][A-Za-z_0-9:]*)\s*$)");
  std::smatch match;
  if (!std::regex_match(declaration, match, trailing_name))
    return {declaration, ""};
  std::string name = match[2];
  if (const auto colons = name.rfind("::"); colons != std::string::npos)
    name = name.substr(colons + 2);
  return {name, match[1]};
}

} // namespace

std::span<const GccCheck> GccChecks() { return kGccChecks; }

std::vector<Conflict> ClassifyGccDiagnostics(const std::vector<CompilerDiagnostic> &diagnostics,
                                             const std::string &compiler,
                                             const std::vector<FunctionLines> &functions) {
  std::vector<Conflict> conflicts;
  bool awaiting_previous = false;
  for (const auto &diagnostic : diagnostics) {
    if (diagnostic.severity == "note") { // gcc 12 puts some notes beside their error
      if (awaiting_previous && conflicts.back().previous.line == 0)
        conflicts.back().previous = diagnostic.location;
      continue;
    }
    awaiting_previous = false;
    if (diagnostic.severity != "error")
      continue;
    for (const auto &check : kGccChecks) {
      std::smatch match;
      if (!std::regex_match(diagnostic.message, match,
                            std::regex(check.message_pattern.begin(), check.message_pattern.end())))
        continue;
      Conflict conflict{.check = std::string(check.check),
                        .clang_diagnostic = "",
                        .reported_by = compiler,
                        .location = diagnostic.location,
                        .message = diagnostic.message};
      for (std::size_t group = 1; group < match.size(); ++group)
        if (match[group].matched && match[group].length() > 0 &&
            match[group].str().find_first_of(" *&") != std::string::npos) {
          std::tie(conflict.name, conflict.type) = NameAndType(match[group]);
          break;
        }
      if (conflict.name.empty())
        for (std::size_t group = match.size(); group-- > 1;)
          if (match[group].matched && match[group].length() > 0) {
            std::tie(conflict.name, conflict.type) = NameAndType(match[group]);
            break;
          }
      const FunctionLines *outermost = nullptr;
      for (const auto &function : functions)
        if (function.first_line <= diagnostic.location.line &&
            diagnostic.location.line <= function.last_line &&
            (!outermost || function.first_line < outermost->first_line))
          outermost = &function;
      if (outermost)
        conflict.kernel = outermost->name;
      conflict.scope = conflict.kernel.empty() ? "namespace" : "function";
      static const std::regex tag(R"(^(struct|class|union|enum)\b.*)");
      if (!conflict.kernel.empty() && conflict.check == "redefinition" &&
          !std::regex_match(conflict.type, tag))
        conflict.check = "variable-redeclared";
      if (!diagnostic.notes.empty())
        conflict.previous = diagnostic.notes.front().location;
      conflicts.push_back(std::move(conflict));
      awaiting_previous = true;
      break;
    }
  }
  return conflicts;
}

} // namespace parsers
