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

// nvcc (its EDG front end) quotes with plain double quotes; a name may be qualified, or a whole
// declaration ("int buf0", "Accumulator::reset()").
#define N "\"([^\"]+)\""

const std::array kNvccChecks = {
    GccCheck{N " has already been declared in the current scope", "redefinition"},
    GccCheck{"[a-z ]+ " N " has already been defined.*", "redefinition"},
    GccCheck{"member " N " has already been initialized", "redefinition"},
    GccCheck{"[a-z ]+ " N " explicitly instantiated more than once", "redefinition"},
    GccCheck{"invalid redeclaration of type name " N ".*", "conflicting-types"},
    GccCheck{"declaration is incompatible with (?:template parameter|constant) " N ".*",
             "template-redeclared-differently"},
    GccCheck{"declaration is incompatible with " N ".*", "conflicting-types"},
    GccCheck{"more than one instance of overloaded function " N " has \"C\" linkage",
             "conflicting-types"},
    GccCheck{"cannot overload functions distinguished by return type alone", "return-type-only"},
    GccCheck{"typedef " N " may not be used in an elaborated type specifier",
             "different-kind-of-symbol"},
    GccCheck{"tag kind of [a-z]+ is incompatible with declaration of [a-z ]+ " N ".*",
             "different-kind-of-symbol"},
    GccCheck{"linkage specification is incompatible with previous " N ".*", "conflicting-linkage"},
    GccCheck{"[a-z ]+ " N " \\(declared at line [0-9]+.*\\) was previously declared .*",
             "conflicting-specifier"},
    GccCheck{"exception specification is incompatible with that of previous function " N ".*",
             "conflicting-specifier"},
    GccCheck{"(?:non-)?thread-local declaration follows (?:non-)?thread-local declaration.*",
             "conflicting-specifier"},
    GccCheck{"thread locality is incompatible with a previous declaration of [a-z ]+ " N ".*",
             "conflicting-specifier"},
    GccCheck{"redefinition of default argument", "conflicting-specifier"},
    GccCheck{"invalid redeclaration of member function " N ".*", "duplicate-member"},
    GccCheck{"overloading two member functions with the same parameter types requires that they "
             "both have ref-qualifiers or both lack ref-qualifiers",
             "duplicate-member"},
    GccCheck{"duplicate parameter name", "parameter-redeclared"},
    GccCheck{"enumerator " N " has already been declared in this scope.*", "using-conflict"},
    GccCheck{"invalid redeclaration of concept template " N ".*",
             "template-redeclared-differently"},
    GccCheck{"too (?:many|few) template parameters -- does not match previous declaration.*",
             "template-redeclared-differently"},
    GccCheck{"requires-clause incompatible with [a-z ]+ " N ".*",
             "template-redeclared-differently"},
    GccCheck{"template parameter " N " may not be redeclared in this scope",
             "template-parameter-shadowed"},
};

#undef N

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

// The outermost main-file function holding `line`: the kernel a finding about `name` is in. A
// function `name` that starts on that line is the one the finding is about, not its kernel.
std::string KernelAround(unsigned line, const std::string &name,
                         const std::vector<FunctionLines> &functions) {
  const FunctionLines *outermost = nullptr;
  for (const auto &function : functions)
    if (function.first_line <= line && line <= function.last_line &&
        !(function.first_line == line && function.name == name) &&
        (!outermost || function.first_line < outermost->first_line))
      outermost = &function;
  return outermost ? outermost->name : "";
}

// What nvcc quotes, as Clang names it: "Accumulator::reset()" -> reset, "int buf0" -> (buf0,
// int), "twice(T) [with T=float]" -> twice, "Accumulator::operator float() const" ->
// "operator float".
std::pair<std::string, std::string> NvccNameAndType(std::string quoted) {
  if (const auto with = quoted.find(" [with "); with != std::string::npos)
    quoted.erase(with);
  if (const auto parameters = quoted.find('('); parameters != std::string::npos)
    quoted.erase(parameters);
  if (const auto colons = quoted.rfind("::"); colons != std::string::npos)
    quoted.erase(0, colons + 2);
  if (quoted.starts_with("operator") || quoted.starts_with("~"))
    return {quoted, ""};
  return NameAndType(quoted);
}

} // namespace

std::span<const GccCheck> GccChecks() { return kGccChecks; }

std::span<const GccCheck> NvccChecks() { return kNvccChecks; }

std::vector<Conflict> ClassifyNvccDiagnostics(const std::vector<CompilerDiagnostic> &diagnostics,
                                              const std::string &compiler,
                                              const std::vector<FunctionLines> &functions) {
  static const std::regex earlier(R"re(at line ([0-9]+)(?: of "([^"]+)")?)re");
  static const std::regex kind_word(R"(^([a-z ]+) ")");
  std::vector<Conflict> conflicts;
  for (const auto &diagnostic : diagnostics) {
    if (diagnostic.severity != "error")
      continue;
    for (const auto &check : kNvccChecks) {
      std::smatch match;
      if (!std::regex_match(diagnostic.message, match,
                            std::regex(check.message_pattern.begin(), check.message_pattern.end())))
        continue;
      Conflict conflict{.check = std::string(check.check),
                        .reported_by = compiler,
                        .location = diagnostic.location,
                        .message = diagnostic.message};
      if (match.size() > 1 && match[1].matched)
        std::tie(conflict.name, conflict.type) = NvccNameAndType(match[1]);
      if (std::smatch line; std::regex_search(diagnostic.message, line, earlier))
        conflict.previous = {line[2].matched ? std::string(line[2]) : diagnostic.location.file,
                             static_cast<unsigned>(std::stoul(line[1])), 0};
      conflict.kernel = KernelAround(diagnostic.location.line, conflict.name, functions);
      conflict.scope = conflict.kernel.empty() ? "namespace" : "function";
      // A name declared twice inside a function, said without its kind (`"i" has already been
      // declared`) or as a variable, is a local variable: pytorch#151290's shape. A label, a
      // class or a function defined twice there is not.
      std::smatch kind;
      const std::string said_as =
          std::regex_search(diagnostic.message, kind, kind_word) ? std::string(kind[1]) : "";
      if (!conflict.kernel.empty() && conflict.check == "redefinition" &&
          (said_as.empty() || said_as == "variable"))
        conflict.check = "variable-redeclared";
      conflicts.push_back(std::move(conflict));
      break;
    }
  }
  return conflicts;
}

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
      conflict.kernel = KernelAround(diagnostic.location.line, conflict.name, functions);
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
