// nearest_word.h: "did you mean": the known word closest to a mistyped one.
// The one helper every option reader (OptionSet, the provider rules, the
// roles of ibssa, the plugin's options) uses to suggest a name, so every
// message says it the same way. Pure functions.
#ifndef IBACM_SSA_COMMON_BASE_NEAREST_WORD_H
#define IBACM_SSA_COMMON_BASE_NEAREST_WORD_H

#include <string>
#include <vector>

namespace ssa {

// The word of `known` nearest to `word` (edit distance, case ignored), or
// "" when none is near enough to be a likely typo: at most a third of the
// longer word's letters differ (at least one), or one is a prefix of the
// other ("distrib" for "distribution").
std::string NearestWord(const std::string& word, const std::vector<std::string>& known);

// "; did you mean 'X'?" for NearestWord's answer, "" when there is none.
std::string DidYouMean(const std::string& word, const std::vector<std::string>& known);

// "a, b or c": the allowed values, for messages.
std::string WordList(const std::vector<std::string>& words);

}  // namespace ssa

#endif
