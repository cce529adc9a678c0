#include "reducers/source/syntax_edits.h"

#include "parsers/clang_analysis.h"
#include "reducers/source/error_slice.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/Core/Replacement.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace reducers {
namespace {

// The #include lines blanked with spaces: offsets stay those of the text.
std::string BlankIncludes(std::string text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    const auto first = text.find_first_not_of(" \t", start);
    if (first < end && text.compare(first, 8, "#include") == 0)
      std::fill(text.begin() + static_cast<std::ptrdiff_t>(first),
                text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    start = end + 1;
  }
  return text;
}

class EditCollector : public clang::RecursiveASTVisitor<EditCollector> {
public:
  EditCollector(clang::ASTContext &context, SyntaxEdits &edits)
      : context_(context), sources_(context.getSourceManager()), edits_(edits) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  template <typename Range> void CollectDeclarations(const Range &decls) {
    std::vector<SourceEdit> siblings;
    for (clang::Decl *decl : decls) {
      if (decl->isImplicit())
        continue;
      if (auto range = DeclarationRange(decl))
        if (auto edit = Add(edits_.remove_declarations, *range, ""))
          siblings.push_back(*edit);
      // Members of a namespace or an extern "C" { } block go one by one too.
      if (auto *inner = llvm::dyn_cast<clang::NamespaceDecl>(decl))
        CollectDeclarations(inner->decls());
      else if (auto *linkage = llvm::dyn_cast<clang::LinkageSpecDecl>(decl);
               linkage && linkage->hasBraces())
        CollectDeclarations(linkage->decls());
    }
    AddRuns(edits_.remove_declaration_runs, siblings);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *function) {
    if (!function->doesThisDeclarationHaveABody() || !InMainFile(function->getBeginLoc()))
      return true;
    auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(function->getBody());
    if (body && !body->body_empty())
      Add(edits_.empty_bodies, Tokens(body->getSourceRange()), "{}");
    for (unsigned i = 0; i < function->getNumParams(); ++i) {
      const clang::ParmVarDecl *parameter = function->getParamDecl(i);
      if (!InMainFile(parameter->getBeginLoc()) || !InMainFile(parameter->getEndLoc()))
        continue;
      // With the comma before it (or after it, for the first of several).
      clang::SourceLocation begin = parameter->getBeginLoc(), end = parameter->getEndLoc();
      if (i > 0)
        begin = function->getParamDecl(i - 1)->getEndLoc();
      else if (function->getNumParams() > 1)
        end = function->getParamDecl(1)->getBeginLoc().getLocWithOffset(-1);
      auto range = clang::CharSourceRange::getTokenRange(begin, end);
      if (i > 0) // from just after the previous parameter
        range = clang::CharSourceRange::getCharRange(
            clang::Lexer::getLocForEndOfToken(begin, 0, sources_, context_.getLangOpts()),
            clang::Lexer::getLocForEndOfToken(parameter->getEndLoc(), 0, sources_,
                                              context_.getLangOpts()));
      Add(edits_.remove_parameters, range, "");
    }
    return true;
  }

  bool VisitCompoundStmt(clang::CompoundStmt *block) {
    if (!InMainFile(block->getBeginLoc()))
      return true;
    std::vector<SourceEdit> siblings;
    for (clang::Stmt *statement : block->body()) {
      if (!InMainFile(statement->getBeginLoc()) || !InMainFile(statement->getEndLoc()))
        continue;
      if (auto edit = Add(edits_.remove_statements, WithSemicolon(statement->getSourceRange()), ""))
        siblings.push_back(*edit);
      if (auto *inner = llvm::dyn_cast<clang::CompoundStmt>(statement))
        Add(edits_.unwrap_blocks, Tokens(statement->getSourceRange()),
            clang::Lexer::getSourceText(
                clang::CharSourceRange::getCharRange(inner->getLBracLoc().getLocWithOffset(1),
                                                     inner->getRBracLoc()),
                sources_, context_.getLangOpts())
                .str());
    }
    AddRuns(edits_.remove_statement_runs, siblings);
    return true;
  }

  bool VisitForStmt(clang::ForStmt *loop) {
    // The loop's variable stays declared: `for (int i = 0; ...) { B }` to `{ int i = 0; B }`.
    if (auto *init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
        init && loop->getBody() && InMainFile(loop->getBeginLoc()) &&
        InMainFile(loop->getEndLoc()) && InMainFile(init->getBeginLoc()) &&
        InMainFile(loop->getBody()->getBeginLoc()) && InMainFile(loop->getBody()->getEndLoc()))
      Add(edits_.unwrap_blocks, Tokens(loop->getSourceRange()),
          "{" + Text(init->getSourceRange(), false) + " " +
              clang::Lexer::getSourceText(llvm::isa<clang::CompoundStmt>(loop->getBody())
                                              ? Tokens(loop->getBody()->getSourceRange())
                                              : WithSemicolon(loop->getBody()->getSourceRange()),
                                          sources_, context_.getLangOpts())
                  .str() +
              "}");
    return Unwrap(loop, loop->getBody());
  }
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt *loop) { return Unwrap(loop, loop->getBody()); }
  bool VisitWhileStmt(clang::WhileStmt *loop) { return Unwrap(loop, loop->getBody()); }
  bool VisitDoStmt(clang::DoStmt *loop) { return Unwrap(loop, loop->getBody()); }
  bool VisitIfStmt(clang::IfStmt *branch) {
    Unwrap(branch, branch->getThen());
    if (branch->getElse())
      Unwrap(branch, branch->getElse());
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    ReplaceBy(op, op->getLHS());
    ReplaceBy(op, op->getRHS());
    return true;
  }
  bool VisitConditionalOperator(clang::ConditionalOperator *op) {
    ReplaceBy(op, op->getTrueExpr());
    ReplaceBy(op, op->getFalseExpr());
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *subscript) {
    ReplaceBy(subscript, subscript->getBase());
    return ReplaceBy(subscript, subscript->getIdx());
  }
  bool VisitParenExpr(clang::ParenExpr *paren) { return ReplaceBy(paren, paren->getSubExpr()); }
  bool VisitExplicitCastExpr(clang::ExplicitCastExpr *cast) {
    return ReplaceBy(cast, cast->getSubExprAsWritten());
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    for (clang::Expr *argument : call->arguments())
      ReplaceBy(call, argument);
    return true;
  }
  // A variable's use to 0: what computed it can then go too (`auto tmp7 = tmp3;` needs tmp3).
  bool VisitDeclRefExpr(clang::DeclRefExpr *reference) {
    if (llvm::isa<clang::VarDecl>(reference->getDecl()) && InMainFile(reference->getBeginLoc()) &&
        InMainFile(reference->getEndLoc()))
      Add(edits_.simplify_expressions, Tokens(reference->getSourceRange()), "0");
    return true;
  }
  bool VisitIntegerLiteral(clang::IntegerLiteral *literal) {
    if (InMainFile(literal->getBeginLoc()) && InMainFile(literal->getEndLoc()))
      Add(edits_.simplify_expressions, Tokens(literal->getSourceRange()), "0");
    return true;
  }

private:
  bool InMainFile(clang::SourceLocation location) const {
    return location.isValid() && location.isFileID() && sources_.isInMainFile(location);
  }

  clang::CharSourceRange Tokens(clang::SourceRange range) const {
    return clang::CharSourceRange::getTokenRange(range);
  }

  // A statement or declaration with the `;` that ends it, when the AST leaves it out.
  clang::CharSourceRange WithSemicolon(clang::SourceRange range) const {
    const clang::SourceLocation after = clang::Lexer::findLocationAfterToken(
        range.getEnd(), clang::tok::semi, sources_, context_.getLangOpts(), false);
    if (after.isValid())
      return clang::CharSourceRange::getCharRange(range.getBegin(), after);
    return Tokens(range);
  }

  std::optional<clang::CharSourceRange> DeclarationRange(clang::Decl *decl) const {
    // A declaration that starts or ends in a macro (`PyMODINIT_FUNC PyInit_kernel(void)`, which
    // every Python-wrapper TU has) is cut where the macro is written.
    clang::SourceRange range = decl->getSourceRange();
    if (range.getBegin().isMacroID())
      range.setBegin(sources_.getExpansionRange(range.getBegin()).getBegin());
    if (range.getEnd().isMacroID())
      range.setEnd(sources_.getExpansionRange(range.getEnd()).getEnd());
    if (!InMainFile(range.getBegin()) || !InMainFile(range.getEnd()))
      return std::nullopt;
    // A function with a body and a namespace end with `}`; the rest with `;`.
    if (auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl);
        function && function->doesThisDeclarationHaveABody())
      return Tokens(range);
    return WithSemicolon(range);
  }

  std::string Text(clang::SourceRange range, bool through_last_char) const {
    const auto chars = through_last_char ? clang::CharSourceRange::getCharRange(
                                               range.getBegin(), range.getEnd().getLocWithOffset(1))
                                         : Tokens(range);
    return clang::Lexer::getSourceText(chars, sources_, context_.getLangOpts()).str();
  }

  bool Unwrap(clang::Stmt *statement, clang::Stmt *body) {
    if (!body || !InMainFile(statement->getBeginLoc()) || !InMainFile(statement->getEndLoc()) ||
        !InMainFile(body->getBeginLoc()) || !InMainFile(body->getEndLoc()))
      return true;
    // A block keeps its braces, so its declarations keep their scope.
    const auto body_range = llvm::isa<clang::CompoundStmt>(body)
                                ? Tokens(body->getSourceRange())
                                : WithSemicolon(body->getSourceRange());
    const std::string replacement =
        clang::Lexer::getSourceText(body_range, sources_, context_.getLangOpts()).str();
    Add(edits_.unwrap_blocks, WithSemicolon(statement->getSourceRange()), replacement);
    return true;
  }

  bool ReplaceBy(clang::Expr *whole, clang::Expr *part) {
    if (!part || !InMainFile(whole->getBeginLoc()) || !InMainFile(whole->getEndLoc()) ||
        !InMainFile(part->getBeginLoc()) || !InMainFile(part->getEndLoc()))
      return true;
    Add(edits_.simplify_expressions, Tokens(whole->getSourceRange()),
        Text(part->getSourceRange(), false));
    return true;
  }

  // Through libTooling's Replacement, which measures the last token of a token range.
  std::optional<SourceEdit> Add(std::vector<SourceEdit> &into, const clang::CharSourceRange &range,
                                const std::string &replacement) {
    if (range.isInvalid())
      return std::nullopt;
    const clang::tooling::Replacement edit(sources_, range, replacement, context_.getLangOpts());
    if (!edit.isApplicable() || edit.getLength() <= replacement.size())
      return std::nullopt;
    into.push_back({edit.getOffset(), edit.getLength(), replacement});
    return into.back();
  }

  // Delta debugging over one list of neighbours (a block's statements, a scope's declarations):
  // runs of half of them, a quarter, ... two, each cut from the first one's start to the last
  // one's end. A failure usually needs a few of many statements; one at a time, a 90-statement
  // kernel costs 90 tests of the interestingness test, halving costs about 2 log 90 when most
  // of them can go.
  static void AddRuns(std::vector<SourceEdit> &into, std::vector<SourceEdit> siblings) {
    // In the order of the text, each after the last one kept ends (an explicit specialisation
    // is listed beside its template, say, and ranges may nest): runs never cut half a one.
    std::stable_sort(siblings.begin(), siblings.end(),
                     [](const SourceEdit &a, const SourceEdit &b) { return a.offset < b.offset; });
    std::vector<SourceEdit> disjoint;
    for (auto &sibling : siblings)
      if (disjoint.empty() || sibling.offset >= disjoint.back().offset + disjoint.back().length)
        disjoint.push_back(std::move(sibling));
    siblings = std::move(disjoint);
    if (siblings.size() < 3)
      return; // two: each alone, or the whole block, is another pass's candidate
    std::size_t run = 2;
    while (run * 2 <= siblings.size() / 2)
      run *= 2;
    for (; run >= 2; run /= 2)
      for (std::size_t first = 0; first + 1 < siblings.size(); first += run) {
        const std::size_t last = std::min(first + run, siblings.size()) - 1;
        if (last == first)
          continue;
        into.push_back({siblings[first].offset,
                        siblings[last].offset + siblings[last].length - siblings[first].offset,
                        ""});
      }
  }

  clang::ASTContext &context_;
  const clang::SourceManager &sources_;
  SyntaxEdits &edits_;
};

bool SameEdit(const SourceEdit &a, const SourceEdit &b) {
  return a.offset == b.offset && a.length == b.length && a.replacement == b.replacement;
}

// Biggest cut first; ties in the order of the text. Duplicates (one range reached twice) once.
void OrderBySize(std::vector<SourceEdit> &edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const SourceEdit &a, const SourceEdit &b) {
    const auto cut_a = a.length - a.replacement.size(), cut_b = b.length - b.replacement.size();
    if (cut_a != cut_b)
      return cut_a > cut_b;
    return a.offset < b.offset;
  });
  edits.erase(std::unique(edits.begin(), edits.end(), SameEdit), edits.end());
}

// From the end of the text back, an enclosing statement before what it holds: code uses what
// comes before it (`auto tmp5 = tmp4;` must go before `tmp4` can), so removals from the end
// succeed where removals from the start would each break a later use.
void OrderFromTheEnd(std::vector<SourceEdit> &edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const SourceEdit &a, const SourceEdit &b) {
    if (a.offset + a.length != b.offset + b.length)
      return a.offset + a.length > b.offset + b.length;
    return a.length > b.length;
  });
  edits.erase(std::unique(edits.begin(), edits.end(), SameEdit), edits.end());
}

// One Clang parse of `text` the way every syntax pass sees it: its own arguments and
// precompiled prefix `pch` (none: empty), or, without arguments, with its #include lines blanked.
std::unique_ptr<clang::ASTUnit> Parse(const std::string &text,
                                      const std::vector<std::string> &clang_args,
                                      const std::filesystem::path &pch,
                                      clang::DiagnosticConsumer &diagnostics) {
  std::vector<std::string> arguments = parsers::AnalysisBaseArguments(true);
  std::string code = text;
  if (clang_args.empty()) {
    code = BlankIncludes(text);
    arguments.insert(arguments.end(), {"-x", "c++", "-std=c++20"});
  } else {
    arguments.insert(arguments.end(), clang_args.begin(), clang_args.end());
    if (!pch.empty())
      arguments.insert(arguments.end(), {"-include-pch", pch.string()});
  }
  arguments.push_back("-w");
  return clang::tooling::buildASTFromCodeWithArgs(
      code, arguments, "candidate.cpp", "inductor-fuzz-reduce",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), {}, &diagnostics);
}

// Where Clang reports errors in the TU itself, as offsets in its text, in the order reported.
class ErrorOffsets : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error || !info.hasSourceManager() ||
        info.getLocation().isInvalid())
      return;
    const clang::SourceManager &sources = info.getSourceManager();
    const clang::SourceLocation location = sources.getFileLoc(info.getLocation());
    if (sources.isInMainFile(location))
      offsets.push_back(sources.getFileOffset(location));
  }
  std::vector<std::size_t> offsets;
};

} // namespace

SyntaxEdits CollectSyntaxEdits(const std::string &text, const std::vector<std::string> &clang_args,
                               const std::filesystem::path &pch) {
  ErrorOffsets errors;
  SyntaxEdits edits;
  auto unit = Parse(text, clang_args, pch, errors);
  if (!unit)
    return edits;
  edits.slice_to_errors = ErrorSliceEdits(*unit, text, errors.offsets);
  // The TU's own declarations only: walking the translation unit would load the whole prefix.
  const std::vector<clang::Decl *> top_level(unit->top_level_begin(), unit->top_level_end());
  EditCollector collector(unit->getASTContext(), edits);
  collector.CollectDeclarations(top_level);
  for (clang::Decl *decl : top_level)
    collector.TraverseDecl(decl);
  for (auto *list : {&edits.remove_declarations, &edits.remove_statements})
    OrderFromTheEnd(*list);
  for (auto *list :
       {&edits.remove_declaration_runs, &edits.remove_statement_runs, &edits.empty_bodies,
        &edits.unwrap_blocks, &edits.simplify_expressions, &edits.remove_parameters})
    OrderBySize(*list);
  edits.parsed = true;
  return edits;
}

SyntaxCache::SyntaxCache(std::vector<std::string> clang_args,
                         const std::filesystem::path &prefix_cache_dir)
    : clang_args_(std::move(clang_args)) {
  if (!clang_args_.empty() && !prefix_cache_dir.empty())
    prefixes_ = std::make_unique<parsers::Analyzer>(
        parsers::AnalysisOptions{.prefix_cache_dir = prefix_cache_dir});
}

SyntaxCache::~SyntaxCache() = default;

std::size_t CountParseErrors(const std::string &text, const std::vector<std::string> &clang_args,
                             const std::filesystem::path &pch) {
  clang::DiagnosticConsumer counter; // the base class counts errors and warnings
  const auto unit = Parse(text, clang_args, pch, counter);
  return unit ? counter.getNumErrors() : std::numeric_limits<std::size_t>::max();
}

std::size_t SyntaxCache::ErrorsIn(const std::string &text) {
  const std::size_t key = std::hash<std::string>{}(text);
  {
    std::lock_guard lock(mutex_);
    if (const auto known = error_counts_.find(key); known != error_counts_.end())
      return known->second;
  }
  // Parsed outside the lock: candidates are counted side by side.
  const std::size_t errors = CountParseErrors(text, clang_args_, PrefixFor(text));
  std::lock_guard lock(mutex_);
  return error_counts_.emplace(key, errors).first->second;
}

std::filesystem::path SyntaxCache::PrefixFor(const std::string &text) {
  if (!prefixes_)
    return {};
  std::lock_guard lock(prefix_mutex_);
  return prefixes_->PrefixFor(text, clang_args_);
}

const SyntaxEdits &SyntaxCache::EditsFor(const std::string &text) {
  std::lock_guard lock(mutex_);
  if (!edits_.parsed || text != text_) {
    edits_ = CollectSyntaxEdits(text, clang_args_, PrefixFor(text));
    text_ = text;
  }
  return edits_;
}

} // namespace reducers
