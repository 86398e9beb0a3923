#pragma once

#include "trial/Trial.h"
#include "space/SearchSpace.h"

#include <span>
#include <string>
#include <vector>

namespace ts {

// Hidden restrictions learned from the observed statuses, as rules a kernel author would write: divisibility
// between integer parameters ("a % b == 0", "a % (b * c) == 0", "(a * d) % (b * c) == 0"). A rule is a
// candidate while no Ok trial breaks it; the learned set is a greedy cover of the failed trials by candidates
// (the rule that explains most of the still unexplained failures first, the one forbidding the least of the
// product on ties), taking only rules that explain at least two failures. A config breaking a learned rule
// that explained n failures is valid with probability 1 / (n + 1) by this model's account.
class LearnedRestrictions {
public:
    struct Rule {
        std::vector<std::size_t> parameters; // positions in the space
        std::vector<char> satisfied;         // over the value positions of `parameters`, last fastest
        double forbidden = 0.0;              // fraction of the product breaking the rule
        std::string text;
    };
    struct Learned {
        std::size_t rule; // position in candidates()
        std::size_t explained;
    };

    LearnedRestrictions() = default;
    // The space must outlive the learner.
    explicit LearnedRestrictions(const SearchSpace& space);

    void update(std::span<const Trial> trials);
    // The probability of each config being valid by the learned rules alone (1 when it breaks none).
    std::vector<double> predict(std::span<const SearchSpace::Index> configs) const;

    const std::vector<Rule>& candidates() const { return m_rules; }
    const std::vector<Learned>& learned() const { return m_learned; }
    // The learned rules as text, most explaining first.
    std::vector<std::string> describe() const;

private:
    using Digits = std::vector<std::vector<std::uint32_t>>; // value positions of trials
    struct Candidate {
        std::size_t rule;
        std::vector<std::uint32_t> explains; // positions of the failures breaking it
    };

    // Rules no Ok trial breaks that explain more failures than a rule unrelated to validity would by chance.
    std::vector<Candidate> significant(const Digits& ok, const Digits& failed) const;
    void addRule(std::vector<std::size_t> parameters, std::string text, const auto& holds);
    bool holds(const Rule& rule, std::span<const std::uint32_t> digits) const;

    const SearchSpace* m_space = nullptr;
    std::vector<Rule> m_rules;
    std::vector<Learned> m_learned;
};

} // namespace ts
