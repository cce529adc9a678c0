// The redeclaration family of Clang's diagnostics, ID by ID (docs/redeclaration-checks.md).
#include "parsers/clang_checks.h"

#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticParse.h>
#include <clang/Basic/DiagnosticSema.h>

#include <array>

namespace parsers {

namespace {

constexpr std::string_view kConflict = "conflicting-declaration";
constexpr std::string_view kShadowing = "shadowing";

// One registration: the Clang ID (spelled once, so name and ID cannot drift apart), the oracle
// kind, our check, and whether the diagnostic's arguments carry (new type, old type).
#define REGISTER(ID, KIND, CHECK, TYPES)                                                           \
  ClangCheck { clang::diag::ID, #ID, KIND, CHECK, TYPES }

const std::array kChecks = {
    // A name defined twice in one scope. Inside a function, a variable's is `variable-redeclared`
    // (pytorch#151290); the analysis decides that from where the declaration is.
    REGISTER(err_redefinition, kConflict, "redefinition", false),
    REGISTER(err_redefinition_of_enumerator, kConflict, "redefinition", false),
    REGISTER(err_redefinition_of_label, kConflict, "redefinition", false),
    REGISTER(err_static_data_member_reinitialization, kConflict, "redefinition", false),
    REGISTER(err_explicit_instantiation_duplicate, kConflict, "redefinition", false),
    REGISTER(err_omp_declare_reduction_redefinition, kConflict, "redefinition", false),
    REGISTER(err_deduction_guide_redeclared, kConflict, "redefinition", false),

    // The same name declared again with another type.
    REGISTER(err_redefinition_different_type, kConflict, "conflicting-types", true),
    REGISTER(err_redeclaration_different_type, kConflict, "conflicting-types", true),
    REGISTER(err_redefinition_different_typedef, kConflict, "conflicting-types", true),
    REGISTER(err_conflicting_types, kConflict, "conflicting-types", false),
    REGISTER(err_redefinition_different_namespace_alias, kConflict, "conflicting-types", false),
    REGISTER(err_enum_redeclare_type_mismatch, kConflict, "conflicting-types", true),

    // The same name declared again as another kind of entity.
    REGISTER(err_redefinition_different_kind, kConflict, "different-kind-of-symbol", false),
    REGISTER(err_tag_definition_of_typedef, kConflict, "different-kind-of-symbol", false),
    REGISTER(err_tag_reference_non_tag, kConflict, "different-kind-of-symbol", false),
    REGISTER(err_use_with_wrong_tag, kConflict, "different-kind-of-symbol", false),

    REGISTER(err_ovl_diff_return_type, kConflict, "return-type-only", false),

    // Storage class or language linkage that disagrees with the earlier declaration.
    REGISTER(err_static_non_static, kConflict, "conflicting-linkage", false),
    REGISTER(err_non_static_static, kConflict, "conflicting-linkage", false),
    REGISTER(err_extern_non_extern, kConflict, "conflicting-linkage", false),
    REGISTER(err_non_extern_extern, kConflict, "conflicting-linkage", false),
    REGISTER(err_different_language_linkage, kConflict, "conflicting-linkage", false),
    REGISTER(err_extern_c_global_conflict, kConflict, "conflicting-linkage", false),

    // A redeclaration whose specifiers disagree with the earlier one.
    REGISTER(err_constexpr_redecl_mismatch, kConflict, "conflicting-specifier", false),
    REGISTER(err_inline_decl_follows_def, kConflict, "conflicting-specifier", false),
    REGISTER(err_mismatched_exception_spec, kConflict, "conflicting-specifier", false),
    REGISTER(err_alignas_mismatch, kConflict, "conflicting-specifier", false),
    REGISTER(err_thread_non_thread, kConflict, "conflicting-specifier", false),
    REGISTER(err_non_thread_thread, kConflict, "conflicting-specifier", false),
    REGISTER(err_thread_thread_different_kind, kConflict, "conflicting-specifier", false),
    REGISTER(err_enum_redeclare_scoped_mismatch, kConflict, "conflicting-specifier", false),
    REGISTER(err_enum_redeclare_fixed_mismatch, kConflict, "conflicting-specifier", false),
    REGISTER(err_mismatched_visibility, kConflict, "conflicting-specifier", false),
    REGISTER(err_param_default_argument_redefinition, kConflict, "conflicting-specifier", false),
    REGISTER(err_class_redeclared_with_different_access, kConflict, "conflicting-specifier", false),
    // CUDA (.cu): a function redeclared for another execution space (__host__, __device__) where
    // Clang does not take the two as overloads.
    REGISTER(err_cuda_ovl_target, kConflict, "conflicting-specifier", false),
    REGISTER(err_cuda_unattributed_constexpr_cannot_overload_device, kConflict,
             "conflicting-specifier", false),

    // A class member declared twice.
    REGISTER(err_duplicate_member, kConflict, "duplicate-member", false),
    REGISTER(err_member_redeclared, kConflict, "duplicate-member", false),
    REGISTER(err_constructor_redeclared, kConflict, "duplicate-member", false),
    REGISTER(err_destructor_redeclared, kConflict, "duplicate-member", false),
    REGISTER(err_conv_function_redeclared, kConflict, "duplicate-member", false),
    REGISTER(err_anonymous_record_member_redecl, kConflict, "duplicate-member", false),
    REGISTER(err_ovl_static_nonstatic_member, kConflict, "duplicate-member", false),
    REGISTER(err_ref_qualifier_overload, kConflict, "duplicate-member", false),
    REGISTER(err_member_redeclared_in_instantiation, kConflict, "duplicate-member", false),

    // A parameter list naming one parameter twice (pytorch#106513, #146975).
    REGISTER(err_param_redefinition, kConflict, "parameter-redeclared", false),
    REGISTER(err_pp_duplicate_name_in_arg_list, kConflict, "parameter-redeclared", false),

    // A using-declaration against another declaration of the name.
    REGISTER(err_using_decl_conflict, kConflict, "using-conflict", false),
    REGISTER(err_using_decl_conflict_reverse, kConflict, "using-conflict", false),
    REGISTER(err_using_decl_redeclaration, kConflict, "using-conflict", false),
    REGISTER(err_using_enum_decl_redeclaration, kConflict, "using-conflict", false),

    // A template redeclared with other template parameters, constraints or defaults.
    REGISTER(err_template_nontype_parm_different_type, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_param_different_kind, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_param_list_different_arity, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_parameter_pack_non_pack, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_different_requires_clause, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_different_type_constraint, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_redefinition_different_concept, kConflict, "template-redeclared-differently",
             false),
    REGISTER(err_template_param_default_arg_redefinition, kConflict,
             "template-redeclared-differently", false),
    REGISTER(err_param_default_argument_template_redecl, kConflict,
             "template-redeclared-differently", false),

    // Shadowing that C++ rejects.
    REGISTER(err_template_param_shadow, kConflict, "template-parameter-shadowed", false),
    REGISTER(err_parameter_shadow_capture, kConflict, "capture-shadowed-by-parameter", false),

    // Warnings: a macro defined again differently, and a local hiding a local of its function.
    REGISTER(ext_pp_macro_redef, kConflict, "macro-redefinition", false),
    REGISTER(warn_decl_shadow, kShadowing, "shadowed-local", false),
};

#undef REGISTER

#define LEAVE_OUT(ID, REASON)                                                                      \
  LeftOutDiagnostic { clang::diag::ID, #ID, REASON }

constexpr std::string_view kObjC = "Objective-C only";
constexpr std::string_view kModules = "C++20 modules; Inductor's TUs declare no module";
constexpr std::string_view kC = "C only (or GNU C inline), never in C++";
constexpr std::string_view kTargetAttributes =
    "a target-, vendor- or ABI-specific attribute Inductor never writes";
constexpr std::string_view kNotProvoked =
    "no C++20 TU we wrote makes Clang 19 emit it (C++ reports the shape with another ID, "
    "registered); should it ever occur it is an unclassified-error finding";
constexpr std::string_view kNotARedeclaration =
    "not a second declaration of a name: reported as unclassified-error if it ever occurs";

const std::array kLeftOut = {
    LEAVE_OUT(
        err_nested_redefinition,
        "C only: C++ reports a nested class named like its class as err_member_name_of_class"),
    LEAVE_OUT(err_partial_spec_redeclared, kNotProvoked),
    LEAVE_OUT(err_var_partial_spec_redeclared, kNotProvoked),
    LEAVE_OUT(err_tag_reference_conflict, kNotProvoked),
    LEAVE_OUT(err_template_param_default_arg_inconsistent_redefinition, kNotProvoked),
    LEAVE_OUT(err_builtin_redeclare, "needs a __builtin_ name declared by hand"),
    LEAVE_OUT(err_bool_redeclaration, "needs `typedef ... bool`, which C++ forbids anyway"),
    LEAVE_OUT(err_redefinition_extern_inline, kC),
    LEAVE_OUT(err_redefinition_variably_modified_typedef, kC),
    LEAVE_OUT(err_mismatched_owning_module, kModules),
    LEAVE_OUT(err_redeclaration_non_exported, kModules),
    LEAVE_OUT(err_private_module_fragment_redefined, kModules),
    LEAVE_OUT(err_module_redeclaration, kModules),
    LEAVE_OUT(err_module_redefinition, kModules),
    LEAVE_OUT(err_duplicate_class_def, kObjC),
    LEAVE_OUT(err_duplicate_method_decl, kObjC),
    LEAVE_OUT(err_duplicate_ivar_declaration, kObjC),
    LEAVE_OUT(err_duplicate_property, kObjC),
    LEAVE_OUT(err_conflicting_aliasing_type, kObjC),
    LEAVE_OUT(err_conflicting_ivar_type, kObjC),
    LEAVE_OUT(err_objc_type_param_redecl, kObjC),
    LEAVE_OUT(err_abi_tag_on_redeclaration, kTargetAttributes),
    LEAVE_OUT(err_new_abi_tag_on_redeclaration, kTargetAttributes),
    LEAVE_OUT(err_attribute_dll_redeclaration, kTargetAttributes),
    LEAVE_OUT(err_attribute_overloadable_mismatch, kTargetAttributes),
    LEAVE_OUT(err_cconv_change, kTargetAttributes),
    LEAVE_OUT(err_regparm_mismatch, kTargetAttributes),
    LEAVE_OUT(err_different_asm_label, kTargetAttributes),
    LEAVE_OUT(err_function_attribute_mismatch, kTargetAttributes),
    LEAVE_OUT(err_loader_uninitialized_redeclaration, kTargetAttributes),
    LEAVE_OUT(err_mismatched_uuid, kTargetAttributes),
    LEAVE_OUT(err_mismatched_ms_inheritance, kTargetAttributes),
    LEAVE_OUT(err_multiversion_duplicate, kTargetAttributes),
    LEAVE_OUT(err_multiversion_diff, kTargetAttributes),
    LEAVE_OUT(err_cpu_dispatch_mismatch, kTargetAttributes),
    LEAVE_OUT(err_target_clone_doesnt_match, kTargetAttributes),
    LEAVE_OUT(err_sme_attr_mismatch, kTargetAttributes),
    LEAVE_OUT(err_omp_declare_mapper_redefinition,
              "OpenMP offloading mappers; Inductor's CPU code never declares one"),
    LEAVE_OUT(ext_compat_template_param_shadow, "an error only under -fms-compatibility"),
    LEAVE_OUT(err_friend_decl_with_def_arg_redeclared, "Inductor declares no friends"),
    LEAVE_OUT(err_template_spec_redecl_out_of_scope,
              "an explicit specialization in the wrong namespace: a scope error, not a second "
              "declaration; unclassified-error"),
    LEAVE_OUT(err_template_spec_redecl_global_scope, kNotARedeclaration),
    LEAVE_OUT(err_invalid_var_template_spec_type,
              "a variable template specialisation with another type; Inductor writes no "
              "variable templates"),
    LEAVE_OUT(err_param_default_argument_member_template_redecl,
              "an out-of-line member of a class template; Inductor writes none"),
    LEAVE_OUT(err_block_extern_cant_init, kNotARedeclaration),
    LEAVE_OUT(err_using_decl_redeclaration_expansion, "a using-declaration pack expansion"),
    LEAVE_OUT(err_duplicate_declspec, kNotARedeclaration),
    LEAVE_OUT(err_duplicate_virt_specifier, kNotARedeclaration),
    LEAVE_OUT(err_disallowed_duplicate_attribute, kNotARedeclaration),
    LEAVE_OUT(err_duplicate_base_class, kNotARedeclaration),
    LEAVE_OUT(err_duplicate_case, kNotARedeclaration),
    LEAVE_OUT(err_typedef_changes_linkage, kNotARedeclaration),
    LEAVE_OUT(err_non_c_like_anon_struct_in_typedef, kNotARedeclaration),
    LEAVE_OUT(err_invalid_declarator_in_function, kNotARedeclaration),
    LEAVE_OUT(err_invalid_declarator_scope, kNotARedeclaration),
    LEAVE_OUT(err_invalid_declarator_global_scope, kNotARedeclaration),
};

#undef LEAVE_OUT

} // namespace

std::span<const ClangCheck> ClangChecks() { return kChecks; }

const ClangCheck *FindClangCheck(unsigned diagnostic_id) {
  for (const auto &check : kChecks)
    if (check.diagnostic_id == diagnostic_id)
      return &check;
  return nullptr;
}

std::span<const LeftOutDiagnostic> LeftOutRedeclarationDiagnostics() { return kLeftOut; }

} // namespace parsers
