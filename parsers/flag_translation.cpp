#include "parsers/flag_translation.h"

namespace parsers {

const std::vector<FlagRule> &FlagRules() {
  static const std::vector<FlagRule> rules = {
      {"-o", FlagMatch::kExact, FlagAction::kDropWithValue, "output file"},
      {"-c", FlagMatch::kExact, FlagAction::kDrop, "compile only"},
      {"-S", FlagMatch::kExact, FlagAction::kDrop, "assembly output"},
      {"-E", FlagMatch::kExact, FlagAction::kDrop, "preprocess only"},
      {"-shared", FlagMatch::kExact, FlagAction::kDrop, "link step"},
      {"-l", FlagMatch::kPrefix, FlagAction::kDrop, "link library"},
      {"-L", FlagMatch::kPrefix, FlagAction::kDrop, "link path"},
      {"-Wl,", FlagMatch::kPrefix, FlagAction::kDrop, "linker option"},
      {"-Xlinker", FlagMatch::kExact, FlagAction::kDropWithValue, "linker option"},
      {"-MF", FlagMatch::kExact, FlagAction::kDropWithValue, "dependency file"},
      {"-MT", FlagMatch::kExact, FlagAction::kDropWithValue, "dependency target"},
      {"-MD", FlagMatch::kExact, FlagAction::kDrop, "dependency file"},
      {"-MMD", FlagMatch::kExact, FlagAction::kDrop, "dependency file"},
      {"-g", FlagMatch::kPrefix, FlagAction::kDrop, "debug info: no effect on declarations"},
      {"-Werror", FlagMatch::kPrefix, FlagAction::kDrop, "a warning must not stop the analysis"},
      {"-fno-tree-loop-vectorize", FlagMatch::kExact, FlagAction::kDrop, "gcc-only optimizer flag"},
      {"-fexcess-precision=", FlagMatch::kPrefix, FlagAction::kDrop,
       "gcc-only; older Clang rejects it"},
      {"-fmax-errors=", FlagMatch::kPrefix, FlagAction::kDrop, "gcc spelling of -ferror-limit"},
      {"-fdiagnostics-", FlagMatch::kPrefix, FlagAction::kDrop, "output format of the compiler"},
      {"-fno-semantic-interposition", FlagMatch::kExact, FlagAction::kDrop, "gcc-only codegen"},
      {"-D", FlagMatch::kExact, FlagAction::kKeepWithValue, "macro definition"},
      {"-U", FlagMatch::kExact, FlagAction::kKeepWithValue, "macro undefinition"},
      {"-I", FlagMatch::kExact, FlagAction::kKeepWithValue, "include path"},
      {"-isystem", FlagMatch::kExact, FlagAction::kKeepWithValue, "system include path"},
      {"-include", FlagMatch::kExact, FlagAction::kKeepWithValue, "forced include"},
      {"-x", FlagMatch::kExact, FlagAction::kKeepWithValue, "input language"},
  };
  return rules;
}

bool IsCppSource(std::string_view path) {
  for (std::string_view suffix : {".cpp", ".cc", ".cxx", ".c", ".cu", ".C"})
    if (path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix)
      return true;
  return false;
}

bool IsCudaSource(std::string_view path) { return path.size() > 3 && path.ends_with(".cu"); }

namespace {

const FlagRule *FindRule(std::string_view argument) {
  for (const auto &rule : FlagRules()) {
    if (rule.match == FlagMatch::kExact ? argument == rule.pattern
                                        : argument.starts_with(rule.pattern))
      return &rule;
  }
  return nullptr;
}

} // namespace

TranslatedCommand TranslateForClang(const std::vector<std::string> &argv) {
  TranslatedCommand out;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string &argument = argv[i];
    if (argument.empty() || argument[0] != '-') {
      if (IsCppSource(argument))
        out.sources.push_back(argument);
      else
        out.dropped.push_back(argument); // objects and libraries given to the link
      continue;
    }
    const FlagRule *rule = FindRule(argument);
    const bool has_value = i + 1 < argv.size();
    switch (rule ? rule->action : FlagAction::kKeep) {
    case FlagAction::kKeep:
      out.clang_args.push_back(argument);
      break;
    case FlagAction::kKeepWithValue:
      out.clang_args.push_back(argument);
      if (has_value)
        out.clang_args.push_back(argv[++i]);
      break;
    case FlagAction::kDrop:
      out.dropped.push_back(argument);
      break;
    case FlagAction::kDropWithValue:
      out.dropped.push_back(argument);
      if (has_value)
        out.dropped.push_back(argv[++i]);
      break;
    }
  }
  return out;
}

} // namespace parsers
