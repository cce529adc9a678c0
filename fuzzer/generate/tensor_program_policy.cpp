// api "tensor_program"'s entries of the default policy (fuzzer/generate/policy.cpp adds them
// through its row, apis/tensor_program.cpp).
#include "fuzzer/generate/tensor_program.h"

namespace fuzzer::generate {

void AddTensorProgramPolicy(GenerationPolicy &policy) {
  // The share of cases, drawn from their own stream (an op program is not drawn for them); at
  // most how many statements, inputs (the first 1 to 3, then weights, biases and indices) and
  // elements per tensor; the share of inputs holding the dtype's edge values, of programs with a
  // dimension marked dynamic, with more than one output, of matmuls and convolutions followed by
  // an epilogue, and of programs with a matmul compiled with max_autotune.
  policy.numbers["p_tensor_program"] = 0.35;
  policy.numbers["program_max_statements"] = 8;
  policy.numbers["program_max_inputs"] = 6;
  policy.numbers["program_max_elements"] = 20000;
  policy.numbers["p_program_edge_values"] = 0.2;
  policy.numbers["p_program_dynamic"] = 0.2;
  policy.numbers["p_program_extra_output"] = 0.4;
  policy.numbers["p_program_epilogue"] = 0.6;
  policy.numbers["p_program_max_autotune"] = 0.2;
  // The inputs' dtypes, ranks, sizes (the inner dimension at and around the vector widths) and
  // layouts; the categories of statements and each category's rows; the epilogue after a matmul
  // or convolution.
  auto &w = policy.weights;
  w["program_dtype"] = {{"float32", 8}, {"bfloat16", 2}, {"float16", 1},
                        {"float64", 1}, {"int64", 2},    {"int32", 1},
                        {"int8", 1},    {"uint8", 1},    {"bool", 1}};
  w["program_rank"] = {{"1", 2}, {"2", 4}, {"3", 3}, {"4", 3}};
  w["program_size"] = {{"0", 0.2},  {"1", 2},    {"2", 2},    {"3", 2},    {"5", 2},   {"7", 1},
                       {"8", 1},    {"9", 1},    {"15", 1},   {"16", 1},   {"17", 1},  {"31", 0.5},
                       {"32", 0.5}, {"33", 0.5}, {"63", 0.3}, {"64", 0.3}, {"65", 0.3}};
  w["program_inner_size"] = {{"0", 0.1}, {"1", 0.5}, {"3", 0.5}, {"7", 2},  {"8", 2},
                             {"9", 2},   {"15", 2},  {"16", 2},  {"17", 2}, {"31", 1},
                             {"32", 1},  {"33", 1},  {"63", 1},  {"64", 1}, {"65", 1}};
  w["program_layout"] = {{"contiguous", 4},    {"transposed", 2}, {"permuted", 1},
                         {"channels_last", 1}, {"sliced", 2},     {"expanded", 1}};
  w["program_category"] = {{"unary", 4},    {"binary", 5}, {"reduction", 4}, {"scan", 1},
                           {"indexing", 3}, {"view", 3},   {"movement", 2},  {"matmul", 2},
                           {"conv", 1},     {"norm", 1.5}, {"pool", 1},      {"inplace", 1.5}};
  w["program_unary"] = {{"relu", 1},  {"sigmoid", 1},       {"tanh", 1},
                        {"exp", 1},   {"log", 1},           {"abs", 1},
                        {"neg", 1},   {"sqrt", 1},          {"sin", 1},
                        {"gelu", 1},  {"gelu_tanh", 0.5},   {"silu", 1},
                        {"erf", 1},   {"reciprocal", 1},    {"square", 1},
                        {"clamp", 1}, {"nan_to_num", 0.5},  {"log1p", 1},
                        {"cast", 3},  {"bitwise_not", 0.5}, {"logical_not", 0.5}};
  w["program_binary"] = {{"add", 3},          {"sub", 2},           {"mul", 3},
                         {"div", 1},          {"maximum", 1},       {"minimum", 1},
                         {"pow", 0.5},        {"atan2", 0.5},       {"bitwise_and", 0.5},
                         {"bitwise_or", 0.5}, {"bitwise_xor", 0.5}, {"logical_and", 0.5},
                         {"compare", 2},      {"where", 1}};
  w["program_reduction"] = {{"sum", 3},  {"mean", 2},      {"prod", 1},    {"amax", 2},
                            {"amin", 1}, {"argmax", 1},    {"argmin", 1},  {"var", 1},
                            {"std", 1},  {"logsumexp", 1}, {"softmax", 2}, {"log_softmax", 1},
                            {"any", 1},  {"all", 1}};
  w["program_scan"] = {{"cumsum", 2}, {"cumprod", 1}, {"cummax", 1}, {"logcumsumexp", 1}};
  w["program_indexing"] = {{"gather", 2},      {"index_select", 2},         {"take_along_dim", 1},
                           {"embedding", 1},   {"masked_fill", 2},          {"where", 2},
                           {"index_put", 1},   {"index_put_accumulate", 1}, {"index_add", 1},
                           {"scatter_add", 1}, {"scatter_reduce", 2}};
  w["program_view"] = {{"permute", 2},    {"transpose", 2}, {"t", 1},         {"reshape", 2},
                       {"flatten", 1},    {"unflatten", 1}, {"unsqueeze", 1}, {"expand", 2},
                       {"slice_step", 2}, {"narrow", 1},    {"flip", 1},      {"roll", 1},
                       {"diagonal", 1},   {"contiguous", 1}};
  w["program_movement"] = {{"cat", 3},         {"stack", 1},         {"pad_constant", 2},
                           {"pad_reflect", 1}, {"pad_replicate", 1}, {"repeat", 1},
                           {"tril", 1},        {"triu", 1}};
  w["program_matmul"] = {{"mm", 2}, {"bmm", 1}, {"addmm", 1}, {"linear", 2}, {"matmul", 2}};
  w["program_conv"] = {{"conv2d", 3}, {"conv1d", 1}};
  w["program_norm"] = {{"layer_norm", 2}, {"group_norm", 1}, {"batch_norm", 1}, {"rms_norm", 1}};
  w["program_pool"] = {{"max_pool2d", 2},
                       {"avg_pool2d", 2},
                       {"adaptive_avg_pool2d", 1},
                       {"interpolate_nearest", 1},
                       {"interpolate_bilinear", 1}};
  w["program_inplace"] = {
      {"add_", 2}, {"mul_", 1}, {"clamp_", 1}, {"setitem", 2}, {"index_put_", 1}};
  w["program_epilogue"] = {{"relu", 2}, {"gelu", 1}, {"add", 2}, {"mul", 1}};
}

} // namespace fuzzer::generate
