#pragma once

// The generator's case builder, shared by its phases: generator.cpp draws the structure, the
// values and the call sequence; expression_draws.cpp draws the lengths, the captured tables
// and the expressions. Internal to fuzzer/generate: nothing outside includes it.

#include "corpus/case.h"
#include "corpus/knobs.h"
#include "fuzzer/generate/expression.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::generate {

// Phase 1: what the case is made of, before any concrete number.
struct Structure {
  std::string api;
  std::string mask_form;               // pattern, composed, random_expression, none
  std::vector<std::string> mask_parts; // pattern names, or "random_expression"
  bool and_masks = true;
  std::string score_pattern; // empty: no score_mod
  std::string q_length_class, kv_length_class, block_size_class;
  bool batch_none = false, heads_none = false;
  // What the mask may not read: create_block_mask's B=None (H=None) means the mask is the same
  // for every batch element (head), so a mask made with it reads no b (h), not even through a
  // table (docs/contracts.md). Score functions read both freely.
  std::set<std::string> mask_may_not_read;
  std::string dtype, head_dim_class, value_dim_class;
  bool grouped_query = false;
  bool data_dependent = false;
  corpus::InductorKnobs knobs;
  // A call sequence: what each call after the first changes (empty: one call).
  std::vector<std::string> call_changes;
  // The families drawn from their own stream (DrawFamilies): flex_attention's decode shapes,
  // kernel_options, input layout and a score_mod over a captured float table.
  bool decode = false;
  nlohmann::json kernel_options; // null, or the options
  std::string layout = corpus::kContiguousLayout;
  std::string float_table_score; // empty, or the pattern
  std::string float_table_dtype;
  // Issue 47's families, drawn from their own stream (DrawReach): how users build block masks,
  // masks that leave rows, heads or partitions without a block, score programs, what
  // flex_attention returns, what torch.compile compiles and the constants' names.
  std::string sparse_mask;                // empty, or the pattern
  bool sparse_mask_alone = false;         // the mask is the sparse pattern, not and'ed in
  std::vector<std::string> score_program; // ops applied to the score, innermost first
  bool separate_full_blocks = true;
  std::optional<corpus::FromKvBlocks> from_kv_blocks;
  bool return_lse = false;
  std::string compile_scope = corpus::kCompileApi;
  bool closures = false; // literals become named constants even without a call sequence
  std::vector<std::string> closure_names; // empty: c0, c1, ...
  std::string index_reduction = "none";   // api index_program's
};

// The literal numbers of an expression that a closure constant may stand for.
void CollectLiterals(Expression &e, std::vector<Expression *> &out);

class CaseBuilder {
public:
  // Call sequences draw from their own stream, so that a case without one is the case the same
  // seed gave before sequences existed.
  CaseBuilder(Random &random, Random &sequence_random, Random &family_random, Random &reach_random,
              const GenerationPolicy &policy)
      : random_(random), sequence_random_(sequence_random), family_random_(family_random),
        reach_random_(reach_random), policy_(policy) {}

  std::string Draw(const std::string &category) { return DrawFrom(random_, category); }
  // A draw of `category` that is none of `excluded`: drawn again until it is not, so that a
  // draw that was never excluded takes what it took before. With no weight left outside
  // `excluded`, the first other option, drawing nothing.
  std::string DrawExcept(const std::string &category, const std::set<std::string> &excluded) {
    std::string option;
    double allowed = 0;
    for (const auto &[name, weight] : policy_.weights.at(category))
      if (!excluded.contains(name)) {
        allowed += weight;
        if (option.empty())
          option = name;
      }
    if (allowed > 0)
      do
        option = policy_.Draw(random_, category);
      while (excluded.contains(option));
    ++features_[category + ":" + option];
    return option;
  }
  std::string DrawFrom(Random &random, const std::string &category) {
    const std::string &option = policy_.Draw(random, category);
    ++features_[category + ":" + option];
    return option;
  }
  bool Chance(const std::string &name, const std::string &feature = "") {
    const bool yes = policy_.Chance(random_, name);
    if (yes && !feature.empty())
      ++features_[feature];
    return yes;
  }

  bool ChanceFrom(Random &random, const std::string &name, const std::string &feature) {
    const bool yes = policy_.Chance(random, name);
    if (yes)
      ++features_[feature];
    return yes;
  }

  Structure DrawStructure();
  void DrawFamilies(Structure &s);
  void DrawReach(Structure &s);
  void DrawKvCacheDecode(Structure &s);
  void DrawValues(const Structure &structure, corpus::Case &c);

  std::map<std::string, int> features_;

private:
  // Phase 2 helpers: captured tensors and expressions, given the lengths.
  std::string AddTable(const std::string &stem, const std::string &dtype, std::int64_t length,
                       const std::function<double(std::int64_t)> &value);
  using E = Expression;

  E IntLeaf();
  E IntConstant();
  E Int(int depth);
  E IndexedInt(int depth);
  E Bool(int depth);
  E MaskPattern(const std::string &pattern);
  E ScorePattern(const std::string &pattern);
  E FloatTableScore(const std::string &pattern, const std::string &dtype, E score);
  void DrawDecodeShape(const Structure &s);
  E TableLookup(ValueType type, int depth);
  std::int64_t LengthOf(const std::string &length_class);
  void DrawCallSequence(const Structure &structure, std::vector<E *> literals, corpus::Case &c);
  // Some of `literals` become constants the functions close over; their first values.
  std::vector<E> LiftConstants(const Structure &s, std::vector<E *> literals, Random &random,
                               corpus::Case &c);
  E SparsePattern(const std::string &pattern);
  E ScoreProgram(const std::vector<std::string> &ops, E score);
  void ApplyReach(const Structure &s, std::vector<E> &parts, std::optional<E> &score,
                  corpus::Case &c);

  Random &random_;
  Random &sequence_random_;
  Random &family_random_; // the families' draws: a case without them is the case it was
  Random &reach_random_;  // issue 47's families' draws, likewise
  const GenerationPolicy &policy_;
  corpus::Case *case_ = nullptr;
  std::int64_t q_len_ = 1, kv_len_ = 1, batch_ = 1, heads_ = 1;
  std::set<std::string> leaves_excluded_; // while drawing the mask: the indices it may not read
};

} // namespace fuzzer::generate
