// Compiled without RTTI, like the LLVM it walks.
#include "parsers/codegen_features.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

namespace parsers {
namespace {

// Numbers Inductor writes into names and pragmas (kernel and buffer numbers, thread counts,
// sizes): a feature is the same whatever they are.
std::string WithoutNumbers(const std::string &text) {
  static const std::regex number(R"([0-9]+L?)");
  return std::regex_replace(text, number, "N");
}

// The namespaces a declaration sits in, outermost first; inline ones (at::vec's CPU_CAPABILITY,
// libstdc++'s __cxx11) and anonymous ones left out, so that the ISA does not change a name.
std::vector<std::string> NamespacesOf(const clang::Decl *declaration) {
  std::vector<std::string> names;
  for (const clang::DeclContext *context = declaration->getDeclContext(); context;
       context = context->getParent())
    if (const auto *space = llvm::dyn_cast<clang::NamespaceDecl>(context))
      if (!space->isInline() && !space->isAnonymousNamespace())
        names.insert(names.begin(), space->getNameAsString());
  return names;
}

// Inductor names a fused kernel after the ATen operations it fused
// (cpp_fused_abs_arange_bitwise_and_..._N): which ones is the case's, not the code generator's;
// the calls in its body say what code it is. The flex template's helpers keep the part of their
// name after the kernel's (cpp_fused_flex_attention_N_kernel_micro_gemm), and the kernel's is
// cut to flex_attention: a table cast fused in (cpp_fused__to_copy_flex_attention_..._N) is
// the same template.
std::string KernelName(const std::string &name) {
  if (!name.starts_with("cpp_fused_"))
    return name;
  const bool flex = name.find("flex_attention") != std::string::npos;
  if (!flex)
    return name.ends_with("_N") ? "cpp_fused_N" : name;
  static const std::regex fused_ops(R"(^cpp_fused_.*?_N(?=_|$))");
  return std::regex_replace(name, fused_ops, "cpp_fused_flex_attention_N",
                            std::regex_constants::format_first_only);
}

// A lambda's type prints as where it was written ("(lambda at /tmp/.../x.cpp:12:7)"): a path
// every case has its own of.
std::string WithoutLambdaLocations(const std::string &type) {
  static const std::regex location(R"(\(lambda at [^)]*\))");
  return std::regex_replace(type, location, "lambda");
}

bool InAtVec(const std::vector<std::string> &spaces) {
  return spaces.size() >= 2 && spaces[0] == "at" && spaces[1] == "vec";
}

std::string Join(const std::vector<std::string> &parts, std::size_t from, const char *separator) {
  std::string joined;
  for (std::size_t i = from; i < parts.size(); ++i)
    joined += (joined.empty() ? "" : separator) + parts[i];
  return joined;
}

class FeatureVisitor : public clang::RecursiveASTVisitor<FeatureVisitor> {
public:
  FeatureVisitor(clang::ASTContext &context, CodegenFeatures &features)
      : context_(context), sources_(context.getSourceManager()), features_(features) {
    policy_ = context.getPrintingPolicy();
    policy_.SuppressScope = true;
    policy_.SuppressTagKeyword = true;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCallExpr(clang::CallExpr *call) {
    if (!InMainFile(call->getBeginLoc()))
      return true;
    if (const clang::FunctionDecl *callee = call->getDirectCallee())
      AddCall(*callee, call->getNumArgs() - (llvm::isa<clang::CXXOperatorCallExpr>(call) &&
                                                     llvm::isa<clang::CXXMethodDecl>(callee)
                                                 ? 1
                                                 : 0));
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *variable) {
    if (!InMainFile(variable->getLocation()) || variable->getType()->isDependentType())
      return true;
    clang::QualType type = variable->getType().getCanonicalType();
    const bool array = type->isArrayType();
    while (type->isArrayType())
      type = context_.getAsArrayType(type)->getElementType().getCanonicalType();
    const std::string vec_type = VecTypeName(type);
    if (!vec_type.empty())
      features_.insert("vec-type:" + vec_type);
    if (llvm::isa<clang::ParmVarDecl>(variable)) {
      // Python's own objects (the module glue around a kernel) are not buffers.
      if (type->isPointerType() &&
          TypeName(type->getPointeeType()).find("_object") == std::string::npos)
        features_.insert("buffer:" + TypeName(type->getPointeeType()));
    } else if (variable->getName().starts_with("tmp_acc")) {
      features_.insert(std::string("reduction:") + (!vec_type.empty() ? "vector-accumulator"
                                                    : array           ? "accumulator-array"
                                                                      : "scalar-accumulator"));
    } else if (const auto *record = type->getAsCXXRecordDecl(); record && vec_type.empty()) {
      const auto spaces = NamespacesOf(record);
      const std::string name = record->getNameAsString();
      if (name.find("Handle") != std::string::npos || name.starts_with("AOTI") ||
          (!spaces.empty() && spaces[0] == "torch"))
        features_.insert("wrapper-type:" + name);
    }
    return true;
  }

  bool VisitCXXRecordDecl(clang::CXXRecordDecl *record) {
    if (InMainFile(record->getLocation()) && record->isThisDeclarationADefinition() &&
        !record->isLambda() && !record->getName().empty())
      features_.insert("class:" + WithoutNumbers(record->getNameAsString()));
    return true;
  }

  bool VisitFunctionDecl(clang::FunctionDecl *function) {
    if (InMainFile(function->getLocation()) && function->doesThisDeclarationHaveABody() &&
        !function->isTemplateInstantiation() && !llvm::isa<clang::CXXMethodDecl>(function))
      features_.insert("function:" + KernelName(WithoutNumbers(function->getNameAsString())));
    return true;
  }

  bool TraverseFunctionDecl(clang::FunctionDecl *function) {
    const int outer = depth_, deepest = deepest_;
    const clang::FunctionDecl *enclosing = function_;
    depth_ = deepest_ = 0;
    function_ = function;
    const bool result = RecursiveASTVisitor::TraverseFunctionDecl(function);
    if (deepest_ > 0 && InMainFile(function->getLocation()))
      features_.insert(fmt::format("loop:nest-{}", std::min(deepest_, 6)));
    depth_ = outer;
    deepest_ = deepest;
    function_ = enclosing;
    return result;
  }

  bool TraverseForStmt(clang::ForStmt *loop) {
    ++depth_;
    deepest_ = std::max(deepest_, depth_);
    const bool result = RecursiveASTVisitor::TraverseForStmt(loop);
    --depth_;
    return result;
  }

  bool VisitForStmt(clang::ForStmt *loop) {
    if (!InMainFile(loop->getForLoc()) || !loop->getInc())
      return true;
    const auto [variable, step] = StepOf(loop->getInc());
    if (variable.empty())
      return true;
    static const std::set<std::int64_t> kSteps = {1, 2, 4, 8, 16, 32, 64};
    features_.insert(kSteps.contains(step) ? fmt::format("loop:step-{}", step)
                                           : std::string("loop:step-other"));
    auto &steps = steps_of_[{function_, variable}];
    steps.insert(step);
    if (steps.contains(1) && std::any_of(steps.begin(), steps.end(), [](auto s) { return s > 1; }))
      features_.insert("loop:vectorized+tail");
    return true;
  }

  bool TraverseLambdaExpr(clang::LambdaExpr *lambda) {
    if (InMainFile(lambda->getBeginLoc()))
      features_.insert("cxx:lambda");
    return RecursiveASTVisitor::TraverseLambdaExpr(lambda);
  }

private:
  void AddCall(const clang::FunctionDecl &callee, unsigned arguments) {
    const auto spaces = NamespacesOf(&callee);
    std::string name = callee.getNameAsString();
    // The same call as instantiated: Vectorized<BFloat16>::exp is other code than
    // Vectorized<float>::exp, convert<float,1,bool,1> other than convert<float,1,long,2>.
    std::string instance = name;
    if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(&callee)) {
      name = method->getParent()->getNameAsString() + "::" + name;
      const std::string owner = VecTypeName(context_.getRecordType(method->getParent()));
      instance = (owner.empty() ? method->getParent()->getNameAsString() : owner) +
                 "::" + callee.getNameAsString();
    }
    if (const auto *arguments_of = callee.getTemplateSpecializationArgs())
      instance += TemplateArguments(arguments_of->asArray());
    if (InAtVec(spaces)) {
      // A load or store with a count is a masked one: the tail of a vectorized loop.
      std::string arity;
      if (name.ends_with("loadu") || name.ends_with("store") || name.ends_with("::set"))
        arity = fmt::format("/{}", arguments);
      features_.insert("vec:" + name + arity);
      if (instance != name)
        features_.insert("vec-instance:" + instance + arity);
    } else if (!spaces.empty() && (spaces[0] == "at" || spaces[0] == "c10" ||
                                   spaces[0] == "torch" || spaces[0] == "std")) {
      const std::string within = Join(spaces, 1, "::");
      features_.insert(spaces[0] + ":" + (within.empty() ? "" : within + "::") + name);
    } else if (name.starts_with("aoti_torch_")) {
      features_.insert("aoti:" + name);
    } else if (spaces.empty() && !InMainFile(callee.getLocation()) &&
               !llvm::isa<clang::CXXMethodDecl>(callee) && !name.starts_with("__") &&
               !name.starts_with("Py") && !name.starts_with("_Py")) {
      // A function of the global namespace a header declares: ATen's scalar math (calc_i0,
      // calc_erfcx), Inductor's own helpers (argmax_combine_vec, div_floor_floating_vec).
      // Python's C API is the module's glue, the same in every TU.
      features_.insert("call:" + name);
    }
  }

  // at::vec's Vectorized<float>, VecMask<float,1>, VectorizedN<float,2>: "" for other types.
  std::string VecTypeName(clang::QualType type) const {
    const auto *record = type->getAsCXXRecordDecl();
    const auto *specialization =
        llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
    if (!specialization || !InAtVec(NamespacesOf(specialization)))
      return "";
    return specialization->getNameAsString() +
           TemplateArguments(specialization->getTemplateArgs().asArray());
  }

  // "<float,1,bool,1>": types and integral values; "?" for anything else.
  std::string TemplateArguments(llvm::ArrayRef<clang::TemplateArgument> arguments) const {
    std::string text = "<";
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      const auto &argument = arguments[i];
      text += i ? "," : "";
      if (argument.getKind() == clang::TemplateArgument::Type)
        text += WithoutLambdaLocations(TypeName(argument.getAsType()));
      else if (argument.getKind() == clang::TemplateArgument::Integral)
        text += std::to_string(argument.getAsIntegral().getExtValue());
      else
        text += "?";
    }
    return text + ">";
  }

  std::string TypeName(clang::QualType type) const {
    return type.getCanonicalType().getUnqualifiedType().getAsString(policy_);
  }

  // The loop variable and the constant it advances by (`x += static_cast<int64_t>(16L)`, `++x`);
  // ("", 0) when the increment is anything else.
  static std::pair<std::string, std::int64_t> StepOf(const clang::Expr *increment) {
    increment = increment->IgnoreParenImpCasts();
    auto variable = [](const clang::Expr *e) -> std::string {
      if (const auto *reference = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
        return reference->getDecl()->getNameAsString();
      return "";
    };
    if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(increment))
      return unary->isIncrementOp() ? std::pair{variable(unary->getSubExpr()), std::int64_t{1}}
                                    : std::pair{std::string(), std::int64_t{0}};
    if (const auto *compound = llvm::dyn_cast<clang::CompoundAssignOperator>(increment)) {
      if (compound->getOpcode() != clang::BO_AddAssign)
        return {"", 0};
      const clang::Expr *step = compound->getRHS()->IgnoreParenImpCasts();
      if (const auto *cast = llvm::dyn_cast<clang::CXXStaticCastExpr>(step))
        step = cast->getSubExpr()->IgnoreParenImpCasts();
      if (const auto *literal = llvm::dyn_cast<clang::IntegerLiteral>(step))
        return {variable(compound->getLHS()),
                static_cast<std::int64_t>(literal->getValue().getSExtValue())};
      return {variable(compound->getLHS()), -1};
    }
    return {"", 0};
  }

  bool InMainFile(clang::SourceLocation location) const {
    return location.isValid() && sources_.isWrittenInMainFile(sources_.getExpansionLoc(location));
  }

  clang::ASTContext &context_;
  const clang::SourceManager &sources_;
  clang::PrintingPolicy policy_{clang::LangOptions()};
  CodegenFeatures &features_;
  int depth_ = 0, deepest_ = 0;
  const clang::FunctionDecl *function_ = nullptr; // whose loops share one variable name space
  std::map<std::pair<const clang::FunctionDecl *, std::string>, std::set<std::int64_t>> steps_of_;
};

} // namespace

CodegenFeatures TextFeatures(std::string_view text) {
  CodegenFeatures features;
  std::istringstream lines{std::string(text)};
  std::string line;
  static const std::regex spaces(R"(\s+)");
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 7, "#pragma") != 0)
      continue;
    std::string pragma = std::regex_replace(line.substr(first + 8), spaces, " ");
    while (!pragma.empty() && pragma.back() == ' ')
      pragma.pop_back();
    features.insert("pragma:" + WithoutNumbers(pragma));
  }
  // Landmarks of Inductor's CPU templates, whose kernels are otherwise generic C++.
  static const std::pair<std::string_view, std::string_view> kLandmarks[] = {
      {"num_kvblocks_per_partition", "template:flex-decoding"},
      {"qSplitSize", "template:flex-attention"},
      {"_micro_gemm", "template:micro-gemm"},
      {"AOTInductorModel", "aoti:model"},
  };
  for (const auto &[landmark, feature] : kLandmarks)
    if (text.find(landmark) != std::string_view::npos)
      features.insert(std::string(feature));
  return features;
}

void CollectAstFeatures(clang::ASTContext &context, const std::vector<clang::Decl *> &parsed,
                        CodegenFeatures &features) {
  FeatureVisitor visitor(context, features);
  for (clang::Decl *declaration : parsed)
    visitor.TraverseDecl(declaration);
}

} // namespace parsers
