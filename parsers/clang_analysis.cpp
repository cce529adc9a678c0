// Compiled without RTTI, like the LLVM it subclasses.
#include "parsers/clang_analysis.h"

#include "parsers/clang_checks.h"
#include "parsers/clang_diagnostic_names.h"
#include "parsers/flag_translation.h"
#include "support/sha256.h"
#include "support/text_file.h"

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

#include <algorithm>
#include <chrono>
#include <cstdint>
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

using Key = std::pair<unsigned, unsigned>; // (line, column) in the main file

struct DeclaredAt {
  std::string name;
  std::string type;
  std::string scope;     // "namespace", "class", "function" or "parameter"
  std::string function;  // a parameter's function, even one declared without a body
  bool variable = false; // a variable (not a parameter, function, type...)
  bool local = false;    // a local variable or a parameter
};

// A function or lambda written in the main file: what encloses a finding.
struct FunctionExtent {
  Key begin, end;
  Key name; // where its name is: a finding there is about the function itself
  std::string name_text;
  bool lambda = false;
};

// What the AST says about the main file: every declaration by position, the functions and
// lambdas (to name the kernel a finding is in) and the extern "C" functions.
struct AstFacts {
  std::map<Key, DeclaredAt> declarations;
  std::vector<FunctionExtent> functions;
  std::vector<ExternCFunction> extern_c;
  CodegenFeatures features;

  // The kernel a position is in: the outermost named function around it, the function
  // declared exactly there left out (it is declared in the scope around it).
  std::string KernelAt(Key position) const {
    const FunctionExtent *outermost = nullptr;
    for (const auto &function : functions)
      if (!function.lambda && Contains(function, position) && function.name != position &&
          (!outermost || function.begin < outermost->begin))
        outermost = &function;
    return outermost ? outermost->name_text : "";
  }

  // The innermost function or lambda around a position (nullptr: none), for "the same function".
  const FunctionExtent *InnermostAt(Key position) const {
    const FunctionExtent *innermost = nullptr;
    for (const auto &function : functions)
      if (Contains(function, position) && function.name != position &&
          (!innermost || innermost->begin < function.begin))
        innermost = &function;
    return innermost;
  }

private:
  static bool Contains(const FunctionExtent &function, Key position) {
    return function.begin <= position && position <= function.end;
  }
};

class FactsVisitor : public clang::RecursiveASTVisitor<FactsVisitor> {
public:
  FactsVisitor(const clang::ASTContext &context, AstFacts &facts)
      : sources_(context.getSourceManager()), policy_(context.getPrintingPolicy()), facts_(facts) {}

  bool VisitNamedDecl(clang::NamedDecl *declaration) {
    if (!InMainFile(declaration->getLocation()))
      return true;
    DeclaredAt declared{.name = declaration->getNameAsString(), .scope = ScopeOf(declaration)};
    if (auto *guide = llvm::dyn_cast<clang::CXXDeductionGuideDecl>(declaration))
      declared.name = guide->getDeducedTemplate()->getNameAsString(); // the template it deduces
    if (auto *value = llvm::dyn_cast<clang::ValueDecl>(declaration))
      declared.type = value->getType().getAsString(policy_);
    else if (auto *alias = llvm::dyn_cast<clang::TypedefNameDecl>(declaration))
      declared.type = alias->getUnderlyingType().getAsString(policy_);
    if (auto *parameter = llvm::dyn_cast<clang::ParmVarDecl>(declaration))
      if (auto *function = llvm::dyn_cast<clang::FunctionDecl>(parameter->getDeclContext()))
        declared.function = function->getNameAsString();
    if (auto *variable = llvm::dyn_cast<clang::VarDecl>(declaration)) {
      declared.variable = !llvm::isa<clang::ParmVarDecl>(variable);
      declared.local = variable->isLocalVarDeclOrParm();
    }
    facts_.declarations[KeyOf(declaration->getLocation())] = declared;
    if (auto *function = llvm::dyn_cast<clang::FunctionDecl>(declaration)) {
      if (function->doesThisDeclarationHaveABody())
        facts_.functions.push_back({KeyOf(function->getBeginLoc()), KeyOf(function->getEndLoc()),
                                    KeyOf(function->getLocation()), declared.name});
      if (function->isExternC())
        facts_.extern_c.push_back({declared.name, declared.type,
                                   function->isThisDeclarationADefinition(),
                                   PositionOf(sources_, function->getLocation())});
    }
    return true;
  }

  bool VisitLambdaExpr(clang::LambdaExpr *lambda) {
    if (InMainFile(lambda->getBeginLoc()))
      facts_.functions.push_back({KeyOf(lambda->getBeginLoc()), KeyOf(lambda->getEndLoc()),
                                  KeyOf(lambda->getBeginLoc()), "(lambda)", true});
    return true;
  }

private:
  static std::string ScopeOf(const clang::NamedDecl *declaration) {
    if (llvm::isa<clang::ParmVarDecl>(declaration))
      return "parameter";
    // Lexical: a block-scope `extern` belongs to the namespace, but is written in the function.
    const clang::DeclContext *context = declaration->getLexicalDeclContext();
    if (context->isFunctionOrMethod())
      return "function";
    if (context->isRecord())
      return "class";
    return "namespace";
  }

  bool InMainFile(clang::SourceLocation location) const {
    return sources_.isWrittenInMainFile(sources_.getExpansionLoc(location));
  }

  Key KeyOf(clang::SourceLocation location) const {
    const auto position = PositionOf(sources_, location);
    return {position.line, position.column};
  }

  const clang::SourceManager &sources_;
  clang::PrintingPolicy policy_;
  AstFacts &facts_;
};

class FactsConsumer : public clang::SemaConsumer {
public:
  explicit FactsConsumer(AstFacts &facts) : facts_(facts) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl *declaration : group)
      parsed_.push_back(declaration);
    return true;
  }
  // Declarations the precompiled prefix hands over are not this TU's: keep them out.
  void HandleInterestingDecl(clang::DeclGroupRef) override {}
  void HandleTranslationUnit(clang::ASTContext &context) override {
    FactsVisitor visitor(context, facts_);
    for (clang::Decl *declaration : parsed_)
      visitor.TraverseDecl(declaration);
    CollectAstFeatures(context, parsed_, facts_.features);
  }

private:
  AstFacts &facts_;
  std::vector<clang::Decl *> parsed_; // only what this TU parsed, never the precompiled prefix
};

class FactsAction : public clang::ASTFrontendAction {
public:
  explicit FactsAction(AstFacts &facts) : facts_(facts) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &,
                                                        llvm::StringRef) override {
    return std::make_unique<FactsConsumer>(facts_);
  }

private:
  AstFacts &facts_;
};

// Turns every diagnostic Clang reports into a finding: a registered ID into its check, any
// other error into `unclassified-error`. The note after a finding gives its other place.
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
      if (awaiting_note_ && findings.back().note_diagnostic.empty())
        findings.back().note_diagnostic = ClangDiagnosticName(info.getID());
      return;
    }
    awaiting_previous_ = false;
    awaiting_note_ = false;
    if (level == clang::DiagnosticsEngine::Fatal) {
      fatal_errors.push_back(fmt::format("{}:{}:{}: {}", position.file, position.line,
                                         position.column, text.str().str()));
      return;
    }
    const ClangCheck *check = FindClangCheck(info.getID());
    if (check && check->kind == "shadowing" && !report_shadowing_)
      return;
    if (!check && level != clang::DiagnosticsEngine::Error)
      return; // a warning no check is about
    Conflict finding;
    if (check) {
      finding.kind = check->kind;
      finding.check = check->check;
      finding.severity = check->kind == "shadowing" ? "warning" : "error";
      finding.clang_diagnostic = check->clang_name;
    } else {
      finding.kind = "analysis-error";
      finding.check = "unclassified-error";
      finding.clang_diagnostic = ClangDiagnosticName(info.getID());
    }
    finding.name = DeclaredName(info);
    finding.location = position;
    finding.message = std::string(text);
    if (check && check->types_in_arguments)
      TypesFromArguments(info, finding);
    findings.push_back(std::move(finding));
    awaiting_previous_ = check != nullptr;
    awaiting_note_ = check == nullptr;
  }

  std::vector<Conflict> findings;
  std::vector<std::string> fatal_errors;

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
  bool awaiting_note_ = false;
};

std::string OriginOf(const std::string &file, const std::string &main_file) {
  if (file == main_file)
    return "translation-unit";
  // Torch's own headers, wherever the venv is: the environment, not the kernel.
  if (file.find("/torch/include/") != std::string::npos)
    return "torch-headers";
  return "included-header";
}

// Completes a finding from the AST: its kernel, scope, name and types, and the check that
// depends on where the declaration is (a variable declared twice inside a function).
void PlaceInContext(Conflict &finding, const AstFacts &facts, const std::string &main_file) {
  finding.origin = OriginOf(finding.location.file, main_file);
  if (finding.origin != "translation-unit")
    return;
  const Key at{finding.location.line, finding.location.column};
  finding.kernel = facts.KernelAt(at);
  const auto later = facts.declarations.find(at);
  const auto earlier =
      finding.previous.file == main_file
          ? facts.declarations.find({finding.previous.line, finding.previous.column})
          : facts.declarations.end();
  if (later != facts.declarations.end()) {
    finding.scope = later->second.scope;
    if (finding.kernel.empty())
      finding.kernel = later->second.function;
    if (finding.type.empty())
      finding.type = later->second.type;
    if (finding.name.empty())
      finding.name = later->second.name;
  } else if (!finding.kernel.empty()) {
    finding.scope = "function";
  } else {
    finding.scope = "namespace";
  }
  if (earlier != facts.declarations.end() && finding.previous_type.empty())
    finding.previous_type = earlier->second.type;
  // A variable declared twice inside one kernel is the pytorch#151290 shape: a check of its own.
  const bool local_variable = later != facts.declarations.end() && later->second.variable &&
                              later->second.scope == "function";
  if (local_variable &&
      (finding.check == "redefinition" ||
       (finding.check == "conflicting-types" && finding.type == finding.previous_type)))
    finding.check = "variable-redeclared";
}

// warn_decl_shadow counts only when the hidden declaration is a local or a parameter of the
// very function (or lambda) the shadowing one is in.
bool HidesALocalOfItsFunction(const Conflict &finding, const AstFacts &facts) {
  if (finding.origin != "translation-unit" || finding.previous.file != finding.location.file)
    return false;
  const Key at{finding.location.line, finding.location.column};
  const Key hidden_at{finding.previous.line, finding.previous.column};
  const auto hidden = facts.declarations.find(hidden_at);
  if (hidden == facts.declarations.end() || !hidden->second.local)
    return false;
  const FunctionExtent *function = facts.InnermostAt(at);
  return function && function == facts.InnermostAt(hidden_at);
}

} // namespace

struct Analyzer::Impl {
  AnalysisOptions options;
  llvm::IntrusiveRefCntPtr<clang::FileManager> files{
      new clang::FileManager(clang::FileSystemOptions())};
  std::map<std::string, std::filesystem::path> prefixes; // key -> .pch (empty: failed)
  // Inductor's prefix makes a precompiled header of about 60 MB; room for it, with a margin.
  static constexpr std::uintmax_t kRoomForAPrefix = std::uintmax_t{512} << 20;

  bool RunClang(std::vector<std::string> arguments, std::unique_ptr<clang::FrontendAction> action,
                clang::DiagnosticConsumer &consumer) {
    arguments.insert(arguments.begin(), "clang++");
    clang::tooling::ToolInvocation invocation(std::move(arguments), std::move(action), files.get());
    invocation.setDiagnosticConsumer(&consumer);
    return invocation.run();
  }

  static bool PrefixIsCurrent(std::vector<std::string> arguments,
                              const std::filesystem::path &pch) {
    arguments.insert(arguments.end(), {"-include-pch", pch.string()});
    clang::DiagnosticConsumer counter; // the base class counts errors
    const auto unit = clang::tooling::buildASTFromCodeWithArgs(
        "", arguments, "prefix-probe.cpp", "clang++",
        std::make_shared<clang::PCHContainerOperations>(),
        clang::tooling::getClangStripDependencyFileAdjuster(), {}, &counter);
    return unit && counter.getNumErrors() == 0;
  }

  // The precompiled prefix for these flags and this leading include block, built on first use.
  std::filesystem::path Prefix(const std::vector<std::string> &arguments,
                               const std::string &block) {
    // The salt changes whenever the way prefixes are built changes, so old ones are not reused.
    std::string key_text = std::string("prefix-v3 ") + clang::getClangFullVersion() + "\n" + block;
    for (const auto &argument : arguments)
      key_text += "\n" + argument;
    const std::string key = support::Sha256Hex(key_text).substr(0, 24);
    // One this process made or checked stays in use, unless another process sharing the
    // folder trimmed it meanwhile: then it is made again.
    if (auto found = prefixes.find(key);
        found != prefixes.end() &&
        (found->second.empty() || std::filesystem::exists(found->second)))
      return found->second;
    // Clang ends the process when it cannot write a prefix ("LLVM ERROR: IO failure on output
    // stream"): on a disk without room for one the TU is analysed without (slower, the same
    // findings).
    std::error_code space_error;
    std::filesystem::create_directories(options.prefix_cache_dir, space_error);
    const auto space = std::filesystem::space(options.prefix_cache_dir, space_error);
    if (space_error || space.available < kRoomForAPrefix)
      return prefixes[key] = std::filesystem::path();
    const auto header = options.prefix_cache_dir / (key + ".h");
    const auto pch = options.prefix_cache_dir / (key + ".pch");
    // One from an earlier run is loaded once on an empty TU first: a venv reinstalled since
    // (a fresh CI clone next to a kept ~/.cache) makes Clang refuse it, and every parser
    // using it (the reducer's passes too) would silently see an empty TU.
    if (std::filesystem::exists(pch)) {
      if (PrefixIsCurrent(arguments, pch))
        return prefixes[key] = pch;
      std::error_code ignored;
      std::filesystem::remove(pch, ignored);
      files = new clang::FileManager(clang::FileSystemOptions());
    }
    // The header keeps its mtime when it already says this: a prefix records the mtime of
    // everything it was built from, and is refused when one changed.
    std::stringstream existing;
    existing << std::ifstream(header).rdbuf();
    // Written whole or not at all: another process sharing the folder may read it meanwhile.
    if (existing.str() != block) {
      try {
        support::WriteFileAtomically(header, block);
      } catch (const std::exception &) {
        return prefixes[key] = std::filesystem::path(); // unwritable: analysed without
      }
    }
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
    if (built)
      TrimPrefixes();
    return prefixes[key];
  }

  // The folder is shared by every campaign, replay and `check` on this machine: past
  // max_prefix_bytes, the oldest prefixes go (not this process's: it uses them). Oldest made,
  // not least used: a prefix's own time is how the tests tell a reused one from a remade one.
  void TrimPrefixes() const {
    struct Entry {
      std::filesystem::file_time_type used;
      std::uintmax_t bytes;
      std::filesystem::path path;
    };
    std::vector<Entry> entries;
    std::uintmax_t total = 0;
    std::error_code error;
    for (const auto &file : std::filesystem::directory_iterator(options.prefix_cache_dir, error)) {
      std::error_code stat_error;
      const auto bytes = file.file_size(stat_error);
      const auto used = file.last_write_time(stat_error);
      if (stat_error || file.path().extension() != ".pch")
        continue;
      total += bytes;
      entries.push_back({used, bytes, file.path()});
    }
    if (total <= options.max_prefix_bytes)
      return;
    std::sort(entries.begin(), entries.end(),
              [](const Entry &a, const Entry &b) { return a.used < b.used; });
    for (const auto &entry : entries) {
      if (total <= options.max_prefix_bytes * 3 / 4)
        break;
      const bool mine = std::any_of(prefixes.begin(), prefixes.end(),
                                    [&](const auto &kept) { return kept.second == entry.path; });
      std::error_code ignored;
      if (!mine && std::filesystem::remove(entry.path, ignored))
        total -= entry.bytes;
    }
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
  report.source_path = input.path;
  std::vector<std::string> arguments =
      AnalysisBaseArguments(impl_->options.report_shadowing, input.path);
  arguments.insert(arguments.end(), input.clang_args.begin(), input.clang_args.end());
  // A file manager per TU: one kept across TUs identifies files by inode, so a TU written where
  // a deleted one was (a campaign's next case) would be read with the old file's size.
  impl_->files = new clang::FileManager(clang::FileSystemOptions());

  // cpp_wrapper TUs include the heavy ATen headers only where their kernels start, far down:
  // precompiling every <header> the TU names, in order, covers those too. Include guards then
  // skip them in the TU. A .cu is parsed whole: a prefix is precompiled as C++, not CUDA.
  std::stringstream text;
  text << std::ifstream(input.path).rdbuf();
  const std::string block = impl_->options.use_prefix_cache && !IsCudaSource(input.path.string())
                                ? IncludedHeaders(text.str())
                                : std::string();
  AstFacts facts;
  std::unique_ptr<FindingCollector> collector;
  auto parse = [&](const std::filesystem::path &pch) {
    std::vector<std::string> invocation = arguments;
    if (!pch.empty())
      invocation.insert(invocation.end(), {"-include-pch", pch.string()});
    invocation.push_back(input.path.string());
    facts = AstFacts{};
    collector = std::make_unique<FindingCollector>(impl_->options.report_shadowing);
    impl_->RunClang(invocation, std::make_unique<FactsAction>(facts), *collector);
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
    PlaceInContext(finding, facts, input.path.string());
    for (auto *position : {&finding.location, &finding.previous})
      if (position->file == input.path.string())
        position->file = report.display_name;
  }
  // Shadowing matters where a generated local hides another local of its own function; a
  // global, a member or another function's local hidden is ordinary C++.
  std::erase_if(collector->findings, [&](const Conflict &finding) {
    return finding.kind == "shadowing" && !HidesALocalOfItsFunction(finding, facts);
  });
  report.findings = std::move(collector->findings);
  report.fatal_errors = std::move(collector->fatal_errors);
  report.extern_c = std::move(facts.extern_c);
  report.features = TextFeatures(text.str());
  report.features.merge(facts.features);
  for (const auto &function : facts.functions)
    if (!function.lambda)
      report.functions.push_back({function.name_text, function.begin.first, function.end.first});
  for (auto &function : report.extern_c)
    if (function.position.file == input.path.string())
      function.position.file = report.display_name;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

std::filesystem::path Analyzer::PrefixFor(const std::string &text,
                                          const std::vector<std::string> &clang_args) {
  const std::string block = IncludedHeaders(text);
  if (block.empty() || !impl_->options.use_prefix_cache)
    return {};
  std::vector<std::string> arguments = AnalysisBaseArguments(impl_->options.report_shadowing);
  arguments.insert(arguments.end(), clang_args.begin(), clang_args.end());
  return impl_->Prefix(arguments, block);
}

} // namespace parsers
