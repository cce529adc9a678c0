#include "reducers/source/error_slice.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace reducers {
namespace {

// Bytes [begin, end) of the text.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool Holds(std::size_t offset) const { return begin <= offset && offset < end; }
  bool Holds(const Span &other) const { return begin <= other.begin && other.end <= end; }
  std::size_t Size() const { return end - begin; }
};

// Every declaration a piece of code names: its variables, functions and constructors, the
// types and templates it spells.
class References : public clang::RecursiveASTVisitor<References> {
public:
  explicit References(const clang::Stmt *skip = nullptr) : skip_(skip) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  // Without the data-recursion queue, so that every statement comes through here.
  bool TraverseStmt(clang::Stmt *statement) {
    return statement == skip_ || RecursiveASTVisitor::TraverseStmt(statement);
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr *reference) { return Add(reference->getDecl()); }
  bool VisitMemberExpr(clang::MemberExpr *member) { return Add(member->getMemberDecl()); }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    return Add(construct->getConstructor());
  }
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc type) { return Add(type.getTypedefNameDecl()); }
  bool VisitTagTypeLoc(clang::TagTypeLoc type) { return Add(type.getDecl()); }
  bool VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc type) {
    return Add(type.getTypePtr()->getTemplateName().getAsTemplateDecl());
  }

  std::vector<const clang::Decl *> found;

private:
  const clang::Stmt *skip_;
  bool Add(const clang::Decl *decl) {
    if (decl)
      found.push_back(decl);
    return true;
  }
};

// The function an offset is in (not a lambda's), the statement of a block it is in (the
// innermost), and which statement declares each local.
class FunctionScan : public clang::RecursiveASTVisitor<FunctionScan> {
public:
  using Locate = std::function<std::optional<Span>(clang::SourceRange)>;
  FunctionScan(std::size_t offset, Locate locate) : offset_(offset), locate_(std::move(locate)) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitFunctionDecl(clang::FunctionDecl *function) {
    if (auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
        method && method->getParent() && method->getParent()->isLambda())
      return true;
    if (!function->doesThisDeclarationHaveABody() || !function->getBody())
      return true;
    const auto body = locate_(function->getBody()->getSourceRange());
    if (body && body->Holds(offset_) && (!function_ || body->Size() < function_body.Size())) {
      function_ = function;
      function_body = *body;
    }
    return true;
  }

  bool VisitCompoundStmt(clang::CompoundStmt *block) {
    for (clang::Stmt *statement : block->body())
      if (const auto span = locate_(statement->getSourceRange());
          span && span->Holds(offset_) && (!statement_ || span->Size() < statement_span.Size())) {
        statement_ = statement;
        statement_span = *span;
      }
    return true;
  }

  bool VisitDeclStmt(clang::DeclStmt *statement) {
    for (clang::Decl *decl : statement->decls())
      declared_by[decl] = statement;
    return true;
  }

  const clang::FunctionDecl *function() const { return function_; }
  const clang::Stmt *statement() const { return statement_; }
  Span function_body;
  Span statement_span;
  std::map<const clang::Decl *, const clang::Stmt *> declared_by;

private:
  std::size_t offset_;
  Locate locate_;
  const clang::FunctionDecl *function_ = nullptr;
  const clang::Stmt *statement_ = nullptr;
};

// The operands of kept code that a `0` could stand for: arguments, the sides of an operator, a
// subscript, a variable's initializer, the arms of a conditional.
class Operands : public clang::RecursiveASTVisitor<Operands> {
public:
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitCallExpr(clang::CallExpr *call) {
    for (clang::Expr *argument : call->arguments())
      Add(argument);
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    for (clang::Expr *argument : construct->arguments())
      Add(argument);
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    Add(op->getLHS());
    return Add(op->getRHS());
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *subscript) {
    Add(subscript->getBase());
    return Add(subscript->getIdx());
  }
  bool VisitConditionalOperator(clang::ConditionalOperator *op) {
    Add(op->getTrueExpr());
    return Add(op->getFalseExpr());
  }
  bool VisitVarDecl(clang::VarDecl *variable) {
    return llvm::isa<clang::ParmVarDecl>(variable) || Add(variable->getInit());
  }

  std::vector<const clang::Expr *> found;

private:
  bool Add(const clang::Expr *operand) {
    if (operand && !llvm::isa<clang::CXXDefaultArgExpr>(operand) &&
        !llvm::isa<clang::IntegerLiteral>(operand->IgnoreImplicit()))
      found.push_back(operand);
    return true;
  }
};

class Slicer {
public:
  Slicer(clang::ASTUnit &unit, const std::string &text)
      : sources_(unit.getASTContext().getSourceManager()),
        lang_(unit.getASTContext().getLangOpts()), text_(text) {
    for (auto decl = unit.top_level_begin(); decl != unit.top_level_end(); ++decl)
      if (const auto span = Locate((*decl)->getSourceRange()))
        top_level_.push_back({*decl, WithSemicolon(*span)});
    // A template's function can be listed beside the template: the outermost one stands for
    // both, so that nothing keeps half of it.
    std::vector<TopLevel> outermost;
    for (std::size_t i = 0; i < top_level_.size(); ++i) {
      bool nested = false;
      for (std::size_t j = 0; j < top_level_.size() && !nested; ++j)
        nested = j != i && top_level_[j].span.Holds(top_level_[i].span) &&
                 (top_level_[j].span.Size() > top_level_[i].span.Size() || j < i);
      if (!nested)
        outermost.push_back(top_level_[i]);
    }
    top_level_ = std::move(outermost);
  }

  // The candidates for the statement holding `offset`, biggest cut first; none when it is not
  // in a function of the TU.
  std::vector<std::string> CandidatesFor(std::size_t offset) {
    const auto outer = TopLevelHolding(offset);
    if (!outer)
      return {};
    FunctionScan scan(offset, [this](clang::SourceRange range) { return Locate(range); });
    scan.TraverseDecl(const_cast<clang::Decl *>(top_level_[*outer].decl));
    if (!scan.function() || !scan.statement() || !scan.function_body.Holds(scan.statement_span))
      return {};
    const Span statement = WithSemicolon(scan.statement_span);

    // The statement's own needs: locals (as the statements declaring them) and top-level
    // declarations, to a fixed point.
    Needs needs{*outer, scan.function_body, statement};
    needs.Follow(*this, scan, scan.statement(), nullptr);
    const std::string body = Body(needs, statement);

    // The whole function's needs, for the candidate that keeps its body.
    Needs whole{*outer, Span{}, Span{}};
    whole.FollowTopLevel(*this, scan, *outer);

    std::vector<std::string> candidates;
    candidates.push_back(Rewrite(needs.top_level, *outer, scan.function_body, body));
    candidates.push_back(Rewrite({}, *outer, scan.function_body, body, false));
    candidates.push_back(Rewrite(whole.top_level, *outer, std::nullopt, ""));

    // Then an operand of what is kept to `0`, and what only it needed gone with it: the
    // dependency chains of a kernel (a pointer from a buffer from a size from a block size) go
    // in one test each. Smallest text first.
    Operands operands;
    operands.TraverseStmt(const_cast<clang::Stmt *>(scan.statement()));
    for (const auto &[begin, node] : needs.local_nodes) {
      if (node.statement)
        operands.TraverseStmt(const_cast<clang::Stmt *>(node.statement));
      else if (node.decl)
        operands.TraverseDecl(const_cast<clang::Decl *>(node.decl));
    }
    std::vector<std::string> pruned;
    std::set<std::pair<std::size_t, std::size_t>> spans_seen;
    for (const clang::Expr *operand : operands.found) {
      const auto span = Locate(operand->getSourceRange());
      if (!span || !spans_seen.insert({span->begin, span->end}).second ||
          pruned.size() >= kMaxPrunings)
        continue;
      Needs without{*outer, scan.function_body, statement, operand};
      without.Follow(*this, scan, scan.statement(), nullptr);
      if (without.local_nodes.size() == needs.local_nodes.size())
        continue; // it needs no fewer declarations: simplify-expressions' business
      pruned.push_back(Rewrite(without.top_level, *outer, scan.function_body,
                               Body(without, statement, Cut{*span, "0"})));
    }
    std::stable_sort(pruned.begin(), pruned.end(), [](const std::string &a, const std::string &b) {
      return a.size() < b.size();
    });
    candidates.insert(candidates.end(), pruned.begin(), pruned.end());
    return candidates;
  }

private:
  struct TopLevel {
    const clang::Decl *decl;
    Span span;
  };

  static constexpr std::size_t kMaxPrunings = 200;

  // What declares a kept local: a statement, or (a lambda's parameter) the declaration alone.
  struct LocalNode {
    const clang::Stmt *statement = nullptr;
    const clang::Decl *decl = nullptr;
    Span span;
  };

  // What kept code needs, to a fixed point.
  struct Needs {
    std::size_t outer;                 // the top-level declaration holding the function
    Span function;                     // its body: the locals (empty: none followed)
    Span statement;                    // the erroneous statement, kept apart
    const clang::Stmt *skip = nullptr; // an operand replaced by 0: what it names is not
    std::map<std::size_t, LocalNode> local_nodes{}; // by offset
    std::set<std::size_t> top_level{};              // indices of needed top-level declarations

    void FollowTopLevel(Slicer &slicer, const FunctionScan &scan, std::size_t index) {
      top_level.insert(index);
      Follow(slicer, scan, nullptr, slicer.top_level_[index].decl);
    }

    void Follow(Slicer &slicer, const FunctionScan &scan, const clang::Stmt *stmt,
                const clang::Decl *decl) {
      References references(skip);
      if (stmt)
        references.TraverseStmt(const_cast<clang::Stmt *>(stmt));
      if (decl)
        references.TraverseDecl(const_cast<clang::Decl *>(decl));
      for (const clang::Decl *found : references.found) {
        const auto at = slicer.OffsetOf(found->getLocation());
        if (!at)
          continue;
        if (function.Size() && function.Holds(*at)) {
          FollowLocal(slicer, scan, found);
          continue;
        }
        const auto index = slicer.TopLevelHolding(*at);
        if (!index || *index == outer || top_level.contains(*index))
          continue;
        FollowTopLevel(slicer, scan, *index);
      }
    }

    void FollowLocal(Slicer &slicer, const FunctionScan &scan, const clang::Decl *local) {
      if (auto *parameter = llvm::dyn_cast<clang::ParmVarDecl>(local);
          parameter && parameter->getDeclContext() == scan.function())
        return; // the function keeps its parameters
      const auto holder = scan.declared_by.find(local);
      const clang::Stmt *declaring = holder == scan.declared_by.end() ? nullptr : holder->second;
      const auto span =
          slicer.Locate(declaring ? declaring->getSourceRange() : local->getSourceRange());
      if (!span)
        return;
      const Span kept = slicer.WithSemicolon(*span);
      if (statement.Holds(kept) || kept.Holds(statement) || local_nodes.contains(kept.begin))
        return;
      local_nodes[kept.begin] = {declaring, declaring ? nullptr : local, kept};
      Follow(slicer, scan, declaring, declaring ? nullptr : local);
    }
  };

  // Bytes of kept code replaced by others: an operand by `0`.
  struct Cut {
    Span span;
    std::string with;
  };

  std::string Kept(Span span, const std::optional<Cut> &cut) const {
    std::string kept = text_.substr(span.begin, span.Size());
    if (cut && span.Holds(cut->span))
      kept.replace(cut->span.begin - span.begin, cut->span.Size(), cut->with);
    return kept;
  }

  // The function's new body: the needed local declarations in their order, then the statement.
  std::string Body(const Needs &needs, Span statement,
                   const std::optional<Cut> &cut = std::nullopt) const {
    std::string body = "{\n";
    for (const auto &[begin, node] : needs.local_nodes) {
      body += Kept(node.span, cut);
      body += text_[node.span.end - 1] == ';' ? "\n" : ";\n";
    }
    return body + Kept(statement, cut) + "\n}";
  }

  std::optional<std::size_t> OffsetOf(clang::SourceLocation location) const {
    if (location.isInvalid())
      return std::nullopt;
    location = sources_.getFileLoc(location);
    if (!sources_.isInMainFile(location))
      return std::nullopt;
    return sources_.getFileOffset(location);
  }

  // A range as bytes of the text, through its last token; macros where they are written.
  std::optional<Span> Locate(clang::SourceRange range) const {
    clang::SourceLocation begin = range.getBegin(), end = range.getEnd();
    if (begin.isMacroID())
      begin = sources_.getExpansionRange(begin).getBegin();
    if (end.isMacroID())
      end = sources_.getExpansionRange(end).getEnd();
    if (begin.isInvalid() || end.isInvalid() || !sources_.isInMainFile(begin) ||
        !sources_.isInMainFile(end))
      return std::nullopt;
    const clang::SourceLocation after = clang::Lexer::getLocForEndOfToken(end, 0, sources_, lang_);
    if (after.isInvalid())
      return std::nullopt;
    const Span span{sources_.getFileOffset(begin), sources_.getFileOffset(after)};
    if (span.end <= span.begin || span.end > text_.size())
      return std::nullopt;
    return span;
  }

  // With the `;` that ends it, when the AST leaves it out.
  Span WithSemicolon(Span span) const {
    const auto next = text_.find_first_not_of(" \t\r\n", span.end);
    if (next != std::string::npos && text_[next] == ';' && text_[span.end - 1] != ';')
      span.end = next + 1;
    return span;
  }

  std::optional<std::size_t> TopLevelHolding(std::size_t offset) const {
    for (std::size_t i = 0; i < top_level_.size(); ++i)
      if (top_level_[i].span.Holds(offset))
        return i;
    return std::nullopt;
  }

  // The text with the function's body replaced (if given) and, when `prune` is on, every
  // top-level declaration removed that is neither needed nor `outer` (the one holding the
  // function) nor changes name lookup for what stays (using-directives and the like), and
  // everything after `outer`: nothing there can matter to it (a template instantiated there
  // aside: the test tells).
  std::string Rewrite(const std::set<std::size_t> &needed, std::size_t outer,
                      std::optional<Span> body, const std::string &replacement,
                      bool prune = true) const {
    std::size_t end = text_.size();
    if (prune)
      if (const auto line_end = text_.find('\n', top_level_[outer].span.end);
          line_end != std::string::npos)
        end = line_end + 1;
    std::vector<std::pair<Span, std::string>> edits;
    if (body)
      edits.push_back({*body, replacement});
    if (prune)
      for (std::size_t i = 0; i < top_level_.size(); ++i) {
        const auto &[decl, span] = top_level_[i];
        if (i == outer || needed.contains(i) || span.end > end ||
            llvm::isa<clang::UsingDirectiveDecl>(decl) || llvm::isa<clang::UsingDecl>(decl) ||
            llvm::isa<clang::NamespaceAliasDecl>(decl))
          continue;
        edits.push_back({span, ""});
      }
    std::sort(edits.begin(), edits.end(),
              [](const auto &a, const auto &b) { return a.first.begin > b.first.begin; });
    std::string result = text_.substr(0, end);
    for (const auto &[span, with] : edits)
      result.replace(span.begin, span.Size(), with);
    return result;
  }

  const clang::SourceManager &sources_;
  const clang::LangOptions &lang_;
  const std::string &text_;
  std::vector<TopLevel> top_level_;
};

} // namespace

std::vector<SourceEdit> ErrorSliceEdits(clang::ASTUnit &unit, const std::string &text,
                                        const std::vector<std::size_t> &error_offsets) {
  Slicer slicer(unit, text);
  std::vector<std::string> texts;
  std::set<std::size_t> statements_seen;
  for (const std::size_t offset : error_offsets) {
    if (statements_seen.size() == 2)
      break;
    auto candidates = slicer.CandidatesFor(offset);
    if (candidates.empty() ||
        !statements_seen.insert(std::hash<std::string>{}(candidates[0])).second)
      continue;
    for (auto &candidate : candidates)
      if (candidate.size() < text.size() &&
          std::find(texts.begin(), texts.end(), candidate) == texts.end())
        texts.push_back(std::move(candidate));
  }
  std::vector<SourceEdit> edits;
  for (auto &candidate : texts)
    edits.push_back({0, text.size(), std::move(candidate)});
  return edits;
}

} // namespace reducers
