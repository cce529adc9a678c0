#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/api_row.h"

#include "corpus/knobs.h"

#include "support/sha256.h"
#include "support/text_file.h"

#include <fmt/format.h>

namespace fuzzer::generate {

GenerationPolicy GenerationPolicy::Default() {
  GenerationPolicy policy;
  policy.weights = {
      {"mask_form", {{"pattern", 5}, {"composed", 3}, {"random_expression", 3}, {"none", 1}}},
      {"mask_pattern",
       {{"causal", 3},
        {"sliding_window", 2},
        {"prefix_lm", 2},
        {"document", 2},
        {"jagged", 1},
        {"dilated", 1},
        {"chunked", 2},
        {"head_offset", 1}}},
      {"score_pattern",
       {{"alibi", 2},
        {"soft_cap", 2},
        {"relative_bias", 2},
        {"head_bias", 1},
        {"scale_shift", 1},
        {"masked_penalty", 1},
        {"random_expression", 2}}},
      {"int_operator",
       {{"+", 3},
        {"-", 3},
        {"*", 2},
        {"//", 2},
        {"%", 2},
        {"&", 1},
        {"|", 1},
        {"^", 1},
        {"~", 1},
        {"abs", 1},
        {"minimum", 1},
        {"maximum", 1},
        {"where", 1},
        {"table", 1}}},
      {"int_leaf", {{"b", 1}, {"h", 1}, {"q_idx", 4}, {"kv_idx", 4}, {"constant", 3}}},
      {"int_constant", {{"small", 4}, {"negative", 2}, {"block_boundary", 2}, {"large", 1}}},
      {"bool_operator",
       {{"<", 2},
        {"<=", 2},
        {">", 2},
        {">=", 2},
        {"==", 1},
        {"!=", 1},
        {"&", 2},
        {"|", 2},
        {"^", 1},
        {"~", 1},
        {"where", 1},
        {"table", 1}}},
      {"length",
       {{"1", 1},
        {"below_128", 2},
        {"127", 1},
        {"128", 2},
        {"129", 1},
        {"256", 2},
        {"non_multiple", 2},
        {"384", 1},
        {"512", 1}}},
      {"block_size", {{"128", 4}, {"64", 1}, {"tuple", 1}}},
      {"dtype", {{"float32", 3}, {"bfloat16", 2}, {"float16", 1}}},
      {"head_dim", {{"16", 2}, {"32", 2}, {"64", 1}}},
      // Call sequences: how many calls after the first, what each changes, and torch.compile's
      // dynamic= for the sequence (automatic: None, Dynamo's own choice after a recompile;
      // as_drawn: the dynamic knob as p_dynamic drew it).
      {"extra_calls", {{"1", 3}, {"2", 1}}},
      {"call_change", {{"constants", 4}, {"shape", 2}, {"tables", 1}, {"dtype", 1}}},
      {"call_dynamic", {{"automatic", 3}, {"as_drawn", 2}}},
      // flex_attention's families (drawn from their own stream): decode shapes, kernel_options,
      // the inputs' memory layout, score_mods over captured float tables.
      {"decode_q_len", {{"1", 4}, {"2_to_16", 1}}},
      {"decode_kv_len", {{"512", 1}, {"1024", 2}, {"2048", 2}, {"4096", 1}, {"non_multiple", 1}}},
      {"partition_size", {{"absent", 1}, {"64", 1}, {"128", 2}, {"256", 2}, {"512", 1}, {"96", 1}}},
      {"layout", {{"bshd-transposed", 2}, {"sliced", 2}, {"expanded-kv", 1}}},
      {"float_table_score",
       {{"head_slopes", 2},
        {"head_distance_bias", 2},
        {"kv_bucket_bias", 2},
        {"mixed_index_bias", 1}}},
      {"float_table_dtype", {{"float32", 3}, {"bfloat16", 2}, {"float16", 1}}},
      // Issue 47's families (drawn from their own stream).
      {"sparse_mask",
       {{"nothing", 1},
        {"kv_prefix", 2},
        {"head_prefix", 2},
        {"heads_without_keys", 1},
        {"rows_without_keys", 2}}},
      // The KV-cache decode family's masks (DrawKvCacheDecode), from the sparse patterns.
      {"kv_cache_mask",
       {{"nothing", 1}, {"kv_prefix", 1}, {"head_prefix", 4}, {"heads_without_keys", 1}}},
      {"score_program",
       {{"clamp", 2},
        {"minimum", 1},
        {"maximum", 1},
        {"where", 1},
        {"pointwise", 4},
        {"shift", 2},
        {"ignore_score", 1},
        {"some_indices", 1}}},
      // The discontinuous ones (floor, round, sign, trunc, frac) at 0: a last-bit difference in
      // the score flips them, which no tolerance tells from a miscompile (--policy turns them on).
      {"pointwise_op",
       {{"tanh", 1},
        {"sigmoid", 1},
        {"sin", 1},
        {"cos", 1},
        {"abs", 1},
        {"sqrt_abs", 1},
        {"log1p_abs", 1},
        {"erf", 1},
        {"relu", 1},
        {"floor", 0},
        {"round", 0},
        {"sign", 0},
        {"square", 1},
        {"exp_tanh", 1},
        {"reciprocal", 1},
        {"trunc", 0},
        {"frac", 0},
        {"neg", 1}}},
      {"block_tensor_layout", {{"contiguous", 2}, {"expanded-heads", 2}, {"strided", 1}}},
      {"closure_name", {{"user", 1}, {"symbol_like", 1}}},
      {"index_reduction", {{"none", 2}, {"sum", 2}, {"amax", 1}, {"any", 1}}},
      // What torch.compile compiles when it is not the API alone (p_function_scope).
      {"compile_scope", {{"function", 1}, {"module", 1}}},
      // Op programs (fuzzer/generate/op_program.h): the dtypes of their values, the ops drawn
      // for a value of each kind, the reduction of the result and the last dimension's length
      // (around the vector widths: 8 and 16 lanes of 32-bit values, 32 and 64 of 8-bit ones).
      {"op_dtype",
       {{"bool", 1},
        {"int8", 2},
        {"uint8", 2},
        {"int16", 2},
        {"int32", 2},
        {"int64", 2},
        {"float16", 2},
        {"bfloat16", 2},
        {"float32", 3},
        {"float64", 3}}},
      {"op_int", {{"add", 2},         {"sub", 2},        {"mul", 2},         {"floordiv", 2},
                  {"mod", 2},         {"fmod", 1},       {"remainder", 1},   {"truncdiv", 1},
                  {"bitwise_and", 1}, {"bitwise_or", 1}, {"bitwise_xor", 1}, {"lshift", 2},
                  {"rshift", 2},      {"minimum", 1},    {"maximum", 1},     {"pow", 1},
                  {"neg", 1},         {"abs", 1},        {"bitwise_not", 1}, {"sign", 1},
                  {"square", 1},      {"clamp", 1},      {"where", 1},       {"compare", 2},
                  {"cast", 3},        {"bitcast", 1},    {"to_float", 2},    {"relu", 1},
                  {"logical", 1}}},
      {"op_float",
       {{"add", 1},
        {"sub", 1},
        {"mul", 1},
        {"div", 1},
        {"floordiv", 1},
        {"fmod", 1},
        {"remainder", 1},
        {"atan2", 1},
        {"hypot", 1},
        {"copysign", 1},
        {"nextafter", 1},
        {"pow", 1},
        {"minimum", 1},
        {"maximum", 1},
        {"fmax", 1},
        {"fmin", 1},
        {"floor", 1},
        {"ceil", 1},
        {"round", 1},
        {"trunc", 1},
        {"frac", 1},
        {"sign", 1},
        {"signbit", 1},
        {"abs", 1},
        {"neg", 1},
        {"sqrt", 1},
        {"rsqrt", 1},
        {"exp", 1},
        {"exp2", 1},
        {"expm1", 1},
        {"log", 1},
        {"log2", 1},
        {"log10", 1},
        {"log1p", 1},
        {"sin", 1},
        {"cos", 1},
        {"tan", 1},
        {"asin", 1},
        {"acos", 1},
        {"atan", 1},
        {"sinh", 1},
        {"cosh", 1},
        {"tanh", 1},
        {"asinh", 1},
        {"acosh", 1},
        {"atanh", 1},
        {"erf", 1},
        {"erfc", 1},
        {"erfinv", 1},
        {"lgamma", 1},
        {"digamma", 1},
        {"sigmoid", 1},
        {"relu", 1},
        {"reciprocal", 1},
        {"nan_to_num", 1},
        {"i0", 1},
        {"ndtr", 1},
        {"log_ndtr", 1},
        {"erfcx", 1},
        {"isnan", 1},
        {"isinf", 1},
        {"isfinite", 1},
        {"frexp_mantissa", 1},
        {"frexp_exponent", 1},
        {"ldexp", 1},
        {"square", 1},
        {"clamp", 1},
        {"where", 1},
        {"compare", 2},
        {"cast", 3},
        {"bitcast", 1},
        {"special_unary", 10},
        {"special_polynomial", 5},
        {"special_binary", 4},
        {"logical", 1}}},
      {"op_bool",
       {{"and", 1},
        {"or", 1},
        {"xor", 1},
        {"not", 1},
        {"logical_and", 1},
        {"logical_or", 1},
        {"logical_xor", 1},
        {"logical_not", 1},
        {"add", 1},
        {"mul", 1},
        {"where", 1},
        {"compare", 1},
        {"cast", 3}}},
      {"op_reduction",
       {{"none", 6},
        {"sum", 1},
        {"amax", 1},
        {"any", 1},
        {"prod", 1},
        {"amin", 1},
        {"all", 1},
        {"argmax", 1},
        {"value_sum", 1},
        {"value_amax", 1}}},
      {"op_length",
       {{"7", 1},
        {"8", 1},
        {"9", 1},
        {"15", 1},
        {"16", 1},
        {"17", 1},
        {"31", 1},
        {"32", 1},
        {"33", 1},
        {"63", 1},
        {"64", 1},
        {"65", 1},
        {"127", 1},
        {"129", 1}}},
  };
  // The mutations feedback applies to pool cases (fuzzer/generate/mutator.h).
  // Weighed by what each brought in a 60-minute campaign (features per use, shared among the
  // mutations a case stacked): wrap and detour most, then the API, the block size and lengths;
  // splices, subexpressions and knobs least.
  policy.weights["mutation"] = {{"operator", 3},         {"constant", 3},     {"subexpression", 2},
                                {"splice", 1},           {"knob", 2},         {"length", 2},
                                {"block_size", 2},       {"dtype", 2},        {"api", 2},
                                {"closure_constant", 1}, {"add_call", 1},     {"layout", 1},
                                {"partition_size", 1},   {"compile_path", 1}, {"wrap", 6},
                                {"table_dtype", 1},      {"detour", 5}};
  policy.numbers = {
      {"max_expression_depth", 3},
      {"max_composed_parts", 3},
      {"p_and_masks", 0.5},
      {"p_data_dependent", 0.02},
      {"p_q_len_differs", 0.4},
      {"p_batch_none", 0.2},
      {"p_heads_none", 0.2},
      {"p_score_mod", 0.7},
      {"p_block_mask_with_score_mod", 0.7},
      {"p_grouped_query", 0.3},
      {"p_value_dim_differs", 0.2},
      {"p_negative_divisor", 0.2},
      {"p_call_sequence", 0.2},
      {"max_closure_constants", 2},
      // Feedback (`fuzz`): the share of cases made by mutating a pool case once the pool has
      // one (p_mutate at first, then following what generated and mutated cases lately bring
      // per second, within p_mutate_min..p_mutate_max: fuzzer/campaign/mutation_share.h), at
      // most how many mutations one case stacks, and the share of mutations whose donor (of
      // subexpressions and splices) is a freshly generated case rather than another pool case.
      {"p_mutate", 0.7},
      {"p_mutate_min", 0.2},
      {"p_mutate_max", 0.9},
      {"mutation_stack", 4},
      {"p_fresh_donor", 0.5},
      {"p_decode_shape", 0.35},
      {"p_kernel_options", 0.35},
      {"p_skip_mask_score", 0.15},
      {"p_layout", 0.3},
      {"p_float_table_score", 0.3},
      // AOTInductor instead of torch.compile, for a case it applies to (AotiApplies).
      {"p_aoti", 0.1},
      // Issue 47's families: the share of cases (of those each applies to) that take each.
      {"p_sparse_mask", 0.15},
      {"p_score_program", 0.3},
      {"p_merged_blocks", 0.15},
      {"p_from_kv_blocks", 0.2},
      // 0 on CPU: torch.compile of flex_attention with return_lse raises NotImplementedError
      // there (documented in flex_cpu.py: "inference only, return_lse is not supported yet").
      {"p_return_lse", 0},
      {"p_function_scope", 0.2},
      {"p_closure", 0.2},
      {"p_named_constants", 0.7}, // else c0, c1, ...
      {"p_index_program", 0.4},   // of the create_mask cases
      // A KV-cache decode step (DrawKvCacheDecode), and its large additive bias.
      {"p_kv_cache_decode", 0.2},
      {"p_kv_cache_bias", 0.6},
      // Op programs (op_program.h): the share of cases, drawn from their own stream; at most
      // how many statements; the share of sources that are edge-value tables.
      {"p_op_program", 0.35},
      {"op_statements", 12},
      {"p_op_edge_source", 0.5},
      {"p_op_padded_source", 0.25},
  };
  // The APIs' own entries (fuzzer/generate/api_row.h), each added by its row: its weight in the
  // structure's "api" choice, and the numbers its draws read.
  for (const GenerateApi &api : GenerateApis()) {
    if (api.weight > 0)
      policy.weights["api"][std::string(api.name)] = api.weight;
    if (api.add_policy)
      api.add_policy(policy);
  }
  // The knobs' own defaults come from the one knob table.
  for (const auto &knob : corpus::InductorKnobTable()) {
    if (!knob.policy_weights.empty()) {
      auto &category = policy.weights[std::string(knob.name)];
      for (const auto &[option, weight] : knob.policy_weights)
        category[std::string(option)] = weight;
    }
    if (!knob.policy_probability.empty())
      policy.numbers[std::string(knob.policy_probability)] = knob.policy_default_probability;
  }
  return policy;
}

void GenerationPolicy::Override(const nlohmann::json &overrides) {
  if (!overrides.is_object())
    throw support::InputError("a policy is a JSON object with \"weights\" and/or \"numbers\"");
  for (const auto &[section, body] : overrides.items()) {
    if (section != "weights" && section != "numbers")
      throw support::InputError(
          fmt::format("policy section '{}' is unknown; use \"weights\" or \"numbers\"", section));
    if (!body.is_object())
      throw support::InputError(fmt::format("policy section '{}' must be an object", section));
  }
  const nlohmann::json weight_overrides = overrides.value("weights", nlohmann::json::object());
  const nlohmann::json number_overrides = overrides.value("numbers", nlohmann::json::object());
  for (const auto &[category, options] : weight_overrides.items()) {
    auto known = weights.find(category);
    if (known == weights.end())
      throw support::InputError(fmt::format("policy weights.{} is not a category the generator has "
                                            "(see `inductor-fuzz gen --print-policy`)",
                                            category));
    if (!options.is_object())
      throw support::InputError(
          fmt::format("policy weights.{} must be an object of option weights", category));
    for (const auto &[option, weight] : options.items()) {
      if (!known->second.contains(option))
        throw support::InputError(fmt::format(
            "policy weights.{}.{} is not an option of that category", category, option));
      if (!weight.is_number() || weight.get<double>() < 0)
        throw support::InputError(
            fmt::format("policy weights.{}.{} must be a number >= 0", category, option));
      known->second[option] = weight.get<double>();
    }
  }
  for (const auto &[name, value] : number_overrides.items()) {
    if (!numbers.contains(name))
      throw support::InputError(
          fmt::format("policy numbers.{} is not a number the generator uses", name));
    if (!value.is_number() || value.get<double>() < 0)
      throw support::InputError(fmt::format("policy numbers.{} must be a number >= 0", name));
    // A p_ number is a probability: 7 is a typo, not "always".
    if (name.starts_with("p_") && value.get<double>() > 1)
      throw support::InputError(
          fmt::format("policy numbers.{} is a probability; give a number from 0 to 1 (it was {})",
                      name, value.dump()));
    numbers[name] = value.get<double>();
  }
}

nlohmann::json GenerationPolicy::ToJson() const {
  return {{"weights", weights}, {"numbers", numbers}};
}

std::string GenerationPolicy::Sha256() const { return support::Sha256Hex(ToJson().dump()); }

const std::string &GenerationPolicy::Draw(Random &random, const std::string &category) const {
  const auto &options = weights.at(category);
  std::vector<double> values;
  std::vector<const std::string *> names;
  for (const auto &[name, weight] : options) {
    names.push_back(&name);
    values.push_back(weight);
  }
  return *names[random.Weighted(values)];
}

double GenerationPolicy::Number(const std::string &name) const { return numbers.at(name); }

GenerationPolicy LoadPolicyFile(const std::filesystem::path &path) {
  const std::string text = support::ReadTextFile(path, "policy file", 1 << 20);
  auto document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded())
    throw support::InputError(fmt::format("policy file {} is not valid JSON", path.string()));
  GenerationPolicy policy = GenerationPolicy::Default();
  try {
    policy.Override(document);
  } catch (const support::InputError &error) {
    throw support::InputError(fmt::format("{}: {}", path.string(), error.what()));
  }
  return policy;
}

} // namespace fuzzer::generate
