// Compiled without RTTI, like the LLVM it subclasses.
#include "parsers/clang_analysis.h"

#include "parsers/clang_checks.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Sema/Sema.h>
#include <clang/Sema/SemaConsumer.h>
#include <clang/Tooling/Tooling.h>
#include <fmt/format.h>
#include <llvm/Support/SHA256.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace parsers {
namespace {

SourcePosition PositionOf(const clang::SourceManager &sources, clang::SourceLocation location) {
  if (location.isInvalid())
    return {};
  const auto presumed = sources.getPresumedLoc(sources.getExpansionLoc(location));
  if (presumed.isInvalid())
    return {};
  return {presumed.getFilename(), presumed.getLine(), presumed.getColumn()};
}

clang::PrintingPolicy CppPrintingPolicy() {
  clang::LangOptions options;
  options.CPlusPlus = true;
  options.Bool = true;
  return clang::PrintingPolicy(options);
}

struct DeclaredAt {
  std::string name;
  std::string type;
  std::string kernel; // the function whose body holds the declaration
};

// What the AST says about the main file: the type of every declaration by position, the
// functions (to name the kernel a finding is in) and the extern "C" functions.
struct AstFacts {
  std::map<std::pair<unsigned, unsigned>, DeclaredAt> declarations; // (line, column)
  std::vector<ExternCFunction> extern_c;
};

class FactsVisitor : public clang::RecursiveASTVisitor<FactsVisitor> {
public:
  FactsVisitor(const clang::ASTContext &context, AstFacts &facts)
      : sources_(context.getSourceManager()), policy_(context.getPrintingPolicy()), facts_(facts) {}

  bool TraverseFunctionDecl(clang::FunctionDecl *function) {
    Record(function, kernel_); // a function is declared in the scope around it
    const std::string saved = kernel_;
    if (function->doesThisDeclarationHaveABody())
      kernel_ = function->getNameAsString();
    const bool result = RecursiveASTVisitor::TraverseFunctionDecl(function);
    kernel_ = saved;
    return result;
  }

  bool VisitDeclaratorDecl(clang::DeclaratorDecl *declaration) {
    if (!llvm::isa<clang::FunctionDecl>(declaration))
      Record(declaration, kernel_);
    return true;
  }

  bool VisitTypedefNameDecl(clang::TypedefNameDecl *declaration) {
    if (InMainFile(declaration))
      facts_.declarations[Key(declaration)] = {
          declaration->getNameAsString(), declaration->getUnderlyingType().getAsString(policy_),
          kernel_};
    return true;
  }

private:
  bool InMainFile(const clang::Decl *declaration) const {
    return sources_.isWrittenInMainFile(sources_.getExpansionLoc(declaration->getLocation()));
  }

  std::pair<unsigned, unsigned> Key(const clang::Decl *declaration) const {
    const auto position = PositionOf(sources_, declaration->getLocation());
    return {position.line, position.column};
  }

  void Record(clang::DeclaratorDecl *declaration, const std::string &kernel) {
    if (!InMainFile(declaration))
      return;
    const auto position = PositionOf(sources_, declaration->getLocation());
    facts_.declarations[{position.line, position.column}] = {
        declaration->getNameAsString(), declaration->getType().getAsString(policy_), kernel};
    if (auto *function = llvm::dyn_cast<clang::FunctionDecl>(declaration);
        function && function->isExternC())
      facts_.extern_c.push_back({function->getNameAsString(),
                                 function->getType().getAsString(policy_),
                                 function->isThisDeclarationADefinition(), position});
  }

  const clang::SourceManager &sources_;
  clang::PrintingPolicy policy_;
  AstFacts &facts_;
  std::string kernel_;
};

class FactsConsumer : public clang::SemaConsumer {
public:
  FactsConsumer(AstFacts &facts, bool instantiate_templates)
      : facts_(facts), instantiate_templates_(instantiate_templates) {}
  void InitializeSema(clang::Sema &sema) override { sema_ = &sema; }
  void ForgetSema() override { sema_ = nullptr; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl *declaration : group)
      parsed_.push_back(declaration);
    // A conflicting declaration is diagnosed where it is written, template or not; the
    // implicit instantiations queued for the end of the TU (most of a template-heavy TU's
    // time: the flex-attention kernels) cannot add one, so they are dropped.
    if (!instantiate_templates_ && sema_)
      sema_->PendingInstantiations.clear();
    return true;
  }
  // Declarations the precompiled prefix hands over are not this TU's: keep them out.
  void HandleInterestingDecl(clang::DeclGroupRef) override {}
  void HandleTranslationUnit(clang::ASTContext &context) override {
    FactsVisitor visitor(context, facts_);
    for (clang::Decl *declaration : parsed_)
      visitor.TraverseDecl(declaration);
  }

private:
  AstFacts &facts_;
  bool instantiate_templates_;
  clang::Sema *sema_ = nullptr;
  std::vector<clang::Decl *> parsed_; // only what this TU parsed, never the precompiled prefix
};

class FactsAction : public clang::ASTFrontendAction {
public:
  FactsAction(AstFacts &facts, bool instantiate_templates)
      : facts_(facts), instantiate_templates_(instantiate_templates) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &,
                                                        llvm::StringRef) override {
    return std::make_unique<FactsConsumer>(facts_, instantiate_templates_);
  }

private:
  AstFacts &facts_;
  bool instantiate_templates_;
};

// Turns Clang's diagnostics into findings by ID; the note after a finding gives its other place.
class FindingCollector : public clang::DiagnosticConsumer {
public:
  explicit FindingCollector(bool report_shadowing) : report_shadowing_(report_shadowing) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    const auto position = info.hasSourceManager()
                              ? PositionOf(info.getSourceManager(), info.getLocation())
                              : SourcePosition{};
    if (level == clang::DiagnosticsEngine::Note) {
      if (awaiting_previous_ && findings.back().previous.line == 0)
        findings.back().previous = position;
      return;
    }
    awaiting_previous_ = false;
    if (const ClangCheck *check = FindClangCheck(info.getID());
        check && (check->kind != "shadowing" || report_shadowing_)) {
      Conflict finding;
      finding.kind = check->kind;
      finding.check = check->check;
      finding.severity = check->kind == "shadowing" ? "warning" : "error";
      finding.clang_diagnostic = check->clang_name;
      finding.name = DeclaredName(info);
      finding.location = position;
      finding.message = std::string(text);
      if (check->types_in_arguments)
        TypesFromArguments(info, finding);
      findings.push_back(std::move(finding));
      awaiting_previous_ = true;
      return;
    }
    const std::string where =
        fmt::format("{}:{}:{}", position.file, position.line, position.column);
    if (level == clang::DiagnosticsEngine::Fatal)
      fatal_errors.push_back(fmt::format("{}: {}", where, text.str().str()));
    else if (level == clang::DiagnosticsEngine::Error)
      other_errors.push_back(fmt::format("{}: {}", where, text.str().str()));
  }

  std::vector<Conflict> findings;
  std::vector<std::string> fatal_errors;
  std::vector<std::string> other_errors;

private:
  static std::string DeclaredName(const clang::Diagnostic &info) {
    for (unsigned i = 0; i < info.getNumArgs(); ++i) {
      switch (info.getArgKind(i)) {
      case clang::DiagnosticsEngine::ak_identifierinfo:
        return info.getArgIdentifier(i)->getName().str();
      case clang::DiagnosticsEngine::ak_nameddecl:
        return reinterpret_cast<const clang::NamedDecl *>(info.getRawArg(i))->getNameAsString();
      case clang::DiagnosticsEngine::ak_declarationname:
        return clang::DeclarationName::getFromOpaqueInteger(info.getRawArg(i)).getAsString();
      default:
        break;
      }
    }
    return "";
  }

  static void TypesFromArguments(const clang::Diagnostic &info, Conflict &finding) {
    std::vector<std::string> types;
    for (unsigned i = 0; i < info.getNumArgs(); ++i)
      if (info.getArgKind(i) == clang::DiagnosticsEngine::ak_qualtype)
        types.push_back(
            clang::QualType::getFromOpaquePtr(reinterpret_cast<void *>(info.getRawArg(i)))
                .getAsString(CppPrintingPolicy()));
    if (types.size() >= 2) {
      finding.type = types[0];
      finding.previous_type = types[1];
    }
  }

  bool report_shadowing_;
  bool awaiting_previous_ = false;
};

std::string Sha256Hex(const std::string &bytes) {
  const auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
  std::string hex;
  for (auto byte : digest)
    hex += fmt::format("{:02x}", byte);
  return hex;
}

} // namespace

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

std::vector<std::string> AnalysisBaseArguments(bool report_shadowing) {
  std::vector<std::string> arguments = {"-fsyntax-only",
                                        "-ferror-limit=0",
                                        "-fno-caret-diagnostics",
                                        "-resource-dir=" INDUCTOR_FUZZ_CLANG_RESOURCE_DIR,
                                        "-isystem",
                                        INDUCTOR_FUZZ_OMP_INCLUDE_DIR,
                                        "-Wno-unknown-pragmas"};
  if (report_shadowing)
    arguments.push_back("-Wshadow");
  return arguments;
}

std::string OmpIncludeDirectory() { return INDUCTOR_FUZZ_OMP_INCLUDE_DIR; }

struct Analyzer::Impl {
  AnalysisOptions options;
  llvm::IntrusiveRefCntPtr<clang::FileManager> files{
      new clang::FileManager(clang::FileSystemOptions())};
  std::map<std::string, std::filesystem::path> prefixes; // key -> .pch (empty: failed)

  bool RunClang(std::vector<std::string> arguments, std::unique_ptr<clang::FrontendAction> action,
                clang::DiagnosticConsumer &consumer) {
    arguments.insert(arguments.begin(), "clang++");
    clang::tooling::ToolInvocation invocation(std::move(arguments), std::move(action), files.get());
    invocation.setDiagnosticConsumer(&consumer);
    return invocation.run();
  }

  // The precompiled prefix for these flags and this leading include block, built on first use.
  std::filesystem::path Prefix(const std::vector<std::string> &arguments,
                               const std::string &block) {
    // The salt changes whenever the way prefixes are built changes, so old ones are not reused.
    std::string key_text = std::string("prefix-v3 ") + clang::getClangFullVersion() + "\n" + block;
    for (const auto &argument : arguments)
      key_text += "\n" + argument;
    const std::string key = Sha256Hex(key_text).substr(0, 24);
    if (auto found = prefixes.find(key); found != prefixes.end())
      return found->second;
    std::filesystem::create_directories(options.prefix_cache_dir);
    const auto header = options.prefix_cache_dir / (key + ".h");
    const auto pch = options.prefix_cache_dir / (key + ".pch");
    if (std::filesystem::exists(pch)) // from an earlier run; Clang checks it is still current
      return prefixes[key] = pch;
    // The header keeps its mtime when it already says this: a prefix records the mtime of
    // everything it was built from, and is refused when one changed.
    std::stringstream existing;
    existing << std::ifstream(header).rdbuf();
    if (existing.str() != block)
      std::ofstream(header) << block;
    std::vector<std::string> build = arguments;
    for (auto &argument : build)
      if (argument == "-fsyntax-only")
        argument = "-Wno-everything";
    // Instantiating the prefix's pending templates once, here, spares every TU that work: it
    // is most of what a warm analysis would otherwise spend.
    build.insert(build.end(), {"-fpch-instantiate-templates", "-x", "c++-header", header.string(),
                               "-o", pch.string()});
    clang::IgnoringDiagConsumer quiet;
    const bool built = RunClang(build, std::make_unique<clang::GeneratePCHAction>(), quiet) &&
                       std::filesystem::exists(pch);
    prefixes[key] = built ? pch : std::filesystem::path();
    return prefixes[key];
  }
};

Analyzer::Analyzer(AnalysisOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Analyzer::~Analyzer() = default;

TranslationUnitReport Analyzer::Analyze(const TranslationUnitInput &input) {
  const auto started = std::chrono::steady_clock::now();
  TranslationUnitReport report;
  report.display_name = input.display_name.empty() ? input.path.string() : input.display_name;
  std::vector<std::string> arguments = AnalysisBaseArguments(impl_->options.report_shadowing);
  arguments.insert(arguments.end(), input.clang_args.begin(), input.clang_args.end());

  // cpp_wrapper TUs include the heavy ATen headers only where their kernels start, far down:
  // precompiling every <header> the TU names, in order, covers those too. Include guards then
  // skip them in the TU.
  std::string block;
  if (impl_->options.use_prefix_cache) {
    std::ifstream stream(input.path);
    std::stringstream text;
    text << stream.rdbuf();
    block = IncludedHeaders(text.str());
  }
  AstFacts facts;
  std::unique_ptr<FindingCollector> collector;
  auto parse = [&](const std::filesystem::path &pch) {
    std::vector<std::string> invocation = arguments;
    if (!pch.empty())
      invocation.insert(invocation.end(), {"-include-pch", pch.string()});
    invocation.push_back(input.path.string());
    facts = AstFacts{};
    collector = std::make_unique<FindingCollector>(impl_->options.report_shadowing);
    impl_->RunClang(invocation,
                    std::make_unique<FactsAction>(facts, impl_->options.instantiate_templates),
                    *collector);
    // Only a prefix Clang refuses (its headers changed since: a reinstalled venv) says the
    // prefix is at fault; other fatal errors belong to the TU.
    return std::none_of(collector->fatal_errors.begin(), collector->fatal_errors.end(),
                        [](const std::string &error) {
                          return error.find("precompiled header") != std::string::npos ||
                                 error.find("PCH file") != std::string::npos;
                        });
  };
  std::filesystem::path pch =
      block.empty() ? std::filesystem::path() : impl_->Prefix(arguments, block);
  if (!parse(pch) && !pch.empty()) {
    // A prefix made stale by changed headers (a reinstalled venv): build it again, once,
    // and if that does not help either, parse from scratch rather than fail.
    std::error_code ignored;
    std::filesystem::remove(pch, ignored);
    impl_->prefixes.clear();
    // Clang's file manager remembers what it saw of the old headers: start afresh, or the new
    // prefix would record those stale times and be refused in turn.
    impl_->files = new clang::FileManager(clang::FileSystemOptions());
    pch = impl_->Prefix(arguments, block);
    if (pch.empty() || !parse(pch)) {
      pch.clear();
      parse(pch);
    }
  }
  report.used_prefix_cache = !pch.empty();

  for (auto &finding : collector->findings) {
    for (auto *position : {&finding.location, &finding.previous})
      if (position->file == input.path.string())
        position->file = report.display_name;
    const auto later = facts.declarations.find({finding.location.line, finding.location.column});
    const auto earlier = facts.declarations.find({finding.previous.line, finding.previous.column});
    if (later != facts.declarations.end()) {
      if (finding.type.empty())
        finding.type = later->second.type;
      if (finding.name.empty())
        finding.name = later->second.name;
      finding.kernel = later->second.kernel;
    }
    // A name declared twice inside one kernel is the pytorch#151290 shape: a check of its own.
    if (!finding.kernel.empty() &&
        (finding.check == "redefinition" ||
         (finding.check == "conflicting-types" && finding.type == finding.previous_type)))
      finding.check = "variable-redeclared";
    if (earlier != facts.declarations.end() && finding.previous_type.empty())
      finding.previous_type = earlier->second.type;
  }
  // Shadowing matters for generated locals; a global or an enumerator hiding another is
  // ordinary C++.
  std::erase_if(collector->findings, [](const Conflict &finding) {
    return finding.kind == "shadowing" && finding.kernel.empty();
  });
  report.findings = std::move(collector->findings);
  report.fatal_errors = std::move(collector->fatal_errors);
  report.other_errors = std::move(collector->other_errors);
  report.extern_c = std::move(facts.extern_c);
  for (auto &function : report.extern_c)
    if (function.position.file == input.path.string())
      function.position.file = report.display_name;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

std::vector<Conflict> CompareLinkedUnits(const std::vector<TranslationUnitReport> &reports) {
  struct Seen {
    const ExternCFunction *function;
    const TranslationUnitReport *unit;
  };
  std::map<std::string, Seen> first_by_name;
  std::vector<Conflict> findings;
  for (const auto &report : reports) {
    for (const auto &function : report.extern_c) {
      auto [seen, inserted] = first_by_name.try_emplace(function.name, Seen{&function, &report});
      if (inserted || seen->second.function->type == function.type)
        continue;
      const ExternCFunction &earlier = *seen->second.function;
      Conflict finding;
      finding.check = earlier.is_definition != function.is_definition
                          ? "forward-declaration-mismatch"
                          : "extern-c-mismatch";
      finding.name = function.name;
      finding.location = function.position;
      finding.previous = earlier.position;
      finding.type = function.type;
      finding.previous_type = earlier.type;
      finding.message =
          fmt::format("extern \"C\" {} is {} in {} but {} in {}", function.name, function.type,
                      report.display_name, earlier.type, seen->second.unit->display_name);
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

} // namespace parsers
