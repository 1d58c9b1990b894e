// nearest_word.cc: see nearest_word.h.
#include "common/base/nearest_word.h"

#include <algorithm>
#include <cctype>

namespace ssa {

namespace {

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Levenshtein distance, with an adjacent swap counting as one edit (the
// commonest typo: "provdier").
size_t Distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string NearestWord(const std::string& word, const std::vector<std::string>& known) {
  const std::string w = Lower(word);
  if (w.empty()) return "";
  std::string best;
  size_t best_distance = 0;
  for (const std::string& k : known) {
    const std::string l = Lower(k);
    if (l == w) continue;  // the same word says nothing new
    size_t distance = Distance(w, l);
    size_t longer = std::max(w.size(), l.size());
    bool prefix = l.compare(0, w.size(), w) == 0 || w.compare(0, l.size(), l) == 0;
    if (distance > std::max<size_t>(1, longer / 3) &&
        !(prefix && std::min(w.size(), l.size()) >= 3))
      continue;
    if (best.empty() || distance < best_distance) {
      best = k;
      best_distance = distance;
    }
  }
  return best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& known) {
  std::string nearest = NearestWord(word, known);
  return nearest.empty() ? "" : "; did you mean '" + nearest + "'?";
}

std::string WordList(const std::vector<std::string>& words) {
  std::string list;
  for (size_t i = 0; i < words.size(); ++i)
    list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return list;
}

}  // namespace ssa
