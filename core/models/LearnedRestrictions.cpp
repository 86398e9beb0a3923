#include "models/LearnedRestrictions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace ts {

namespace {

constexpr std::size_t kMinExplained = 2; // failures a rule must explain to be learned
constexpr std::size_t kMinOk = 2;        // Ok trials before any rule is learned
constexpr double kSignificance = 1e-3;   // most chance of explaining as many failures without being a rule
constexpr std::size_t kLargestTable = 1 << 16; // value combinations of one rule
constexpr std::size_t kMostRules = 20000;

// Parameters whose values are all positive integers (divisibility makes sense for them).
bool positiveIntegers(const Parameter& parameter) {
    for (const Value& value : parameter.values) {
        if (!isNumeric(value))
            return false;
        double number = toNumber(value);
        if (number < 1.0 || number != std::floor(number) || number > 1e9)
            return false;
    }
    return !parameter.values.empty();
}

// The chance that `broken` trials drawn at random from `observed` ones of which `failed` failed are all
// failures (hypergeometric): how easily a rule unrelated to validity explains as many failures as it does.
double chanceOfExplaining(std::size_t broken, std::size_t failed, std::size_t observed) {
    double logP = 0.0;
    for (std::size_t i = 0; i < broken; ++i)
        logP += std::log(double(failed - i) / double(observed - i));
    return std::exp(logP);
}

} // namespace

LearnedRestrictions::LearnedRestrictions(const SearchSpace& space) : m_space(&space) {
    std::vector<std::size_t> vars;
    for (std::size_t i = 0; i < space.dimension(); ++i)
        if (positiveIntegers(space.parameters()[i]))
            vars.push_back(i);
    auto name = [&](std::size_t p) -> const std::string& { return space.parameters()[p].name; };
    using V = std::int64_t;
    for (std::size_t a : vars)
        for (std::size_t b : vars)
            if (a != b)
                addRule({a, b}, fmt::format("{} % {} == 0", name(a), name(b)),
                        [](std::span<const V> v) { return v[0] % v[1] == 0; });
    for (std::size_t a : vars)
        for (std::size_t ib = 0; ib < vars.size(); ++ib)
            for (std::size_t ic = ib + 1; ic < vars.size(); ++ic) {
                std::size_t b = vars[ib], c = vars[ic];
                if (a != b && a != c)
                    addRule({a, b, c}, fmt::format("{} % ({} * {}) == 0", name(a), name(b), name(c)),
                            [](std::span<const V> v) { return v[0] % (v[1] * v[2]) == 0; });
            }
    for (std::size_t ia = 0; ia < vars.size(); ++ia)
        for (std::size_t id = ia + 1; id < vars.size(); ++id)
            for (std::size_t ib = 0; ib < vars.size(); ++ib)
                for (std::size_t ic = ib + 1; ic < vars.size(); ++ic) {
                    std::size_t a = vars[ia], d = vars[id], b = vars[ib], c = vars[ic];
                    if (b == a || b == d || c == a || c == d)
                        continue;
                    addRule({a, d, b, c},
                            fmt::format("({} * {}) % ({} * {}) == 0", name(a), name(d), name(b), name(c)),
                            [](std::span<const V> v) { return (v[0] * v[1]) % (v[2] * v[3]) == 0; });
                }
}

void LearnedRestrictions::addRule(std::vector<std::size_t> parameters, std::string text, const auto& holds) {
    if (m_rules.size() >= kMostRules)
        return;
    std::size_t size = 1;
    bool varies = false;
    for (std::size_t p : parameters) {
        size *= m_space->parameters()[p].values.size();
        varies = varies || m_space->parameters()[p].values.size() > 1;
        if (size > kLargestTable)
            return;
    }
    if (!varies)
        return;
    Rule rule{std::move(parameters), std::vector<char>(size), 0.0, std::move(text)};
    std::vector<std::int64_t> values(rule.parameters.size());
    std::size_t broken = 0;
    for (std::size_t cell = 0; cell < size; ++cell) {
        std::size_t rest = cell;
        for (std::size_t k = rule.parameters.size(); k-- > 0;) {
            const auto& list = m_space->parameters()[rule.parameters[k]].values;
            values[k] = static_cast<std::int64_t>(toNumber(list[rest % list.size()]));
            rest /= list.size();
        }
        rule.satisfied[cell] = holds(std::span<const std::int64_t>(values));
        broken += !rule.satisfied[cell];
    }
    if (broken == 0)
        return; // true of every config: says nothing
    rule.forbidden = double(broken) / double(size);
    m_rules.push_back(std::move(rule));
}

bool LearnedRestrictions::holds(const Rule& rule, std::span<const std::uint32_t> digits) const {
    std::size_t cell = 0;
    for (std::size_t p : rule.parameters)
        cell = cell * m_space->parameters()[p].values.size() + digits[p];
    return rule.satisfied[cell];
}

std::vector<LearnedRestrictions::Candidate> LearnedRestrictions::significant(const Digits& ok,
                                                                             const Digits& failed) const {
    std::vector<Candidate> candidates;
    for (std::size_t r = 0; r < m_rules.size(); ++r) {
        if (!std::all_of(ok.begin(), ok.end(), [&](const auto& digits) { return holds(m_rules[r], digits); }))
            continue;
        Candidate candidate{r, {}};
        for (std::uint32_t f = 0; f < failed.size(); ++f)
            if (!holds(m_rules[r], failed[f]))
                candidate.explains.push_back(f);
        if (candidate.explains.size() >= kMinExplained &&
            chanceOfExplaining(candidate.explains.size(), failed.size(), ok.size() + failed.size()) <=
                kSignificance)
            candidates.push_back(std::move(candidate));
    }
    return candidates;
}

void LearnedRestrictions::update(std::span<const Trial> trials) {
    m_learned.clear();
    if (!m_space)
        return;
    Digits ok, failed;
    for (const Trial& trial : trials)
        (trial.measurement.status == MeasureStatus::Ok ? ok : failed).push_back(m_space->digits(trial.index));
    if (failed.size() < kMinExplained || ok.size() < kMinOk)
        return;
    std::vector<Candidate> candidates = significant(ok, failed);
    // Greedy cover: the candidate explaining most of the still unexplained failures next (the one forbidding
    // the least of the product on ties), while it explains at least kMinExplained of them.
    std::vector<char> unexplained(failed.size(), 1), taken(candidates.size(), 0);
    for (;;) {
        std::size_t best = candidates.size(), bestCount = 0;
        for (std::size_t k = 0; k < candidates.size(); ++k) {
            if (taken[k])
                continue;
            std::size_t count = 0;
            for (std::uint32_t f : candidates[k].explains)
                count += unexplained[f];
            if (count > bestCount ||
                (count == bestCount && best < candidates.size() &&
                 m_rules[candidates[k].rule].forbidden < m_rules[candidates[best].rule].forbidden)) {
                best = k;
                bestCount = count;
            }
        }
        if (bestCount < kMinExplained)
            break;
        taken[best] = 1;
        for (std::uint32_t f : candidates[best].explains)
            unexplained[f] = 0;
        m_learned.push_back({candidates[best].rule, candidates[best].explains.size()});
    }
}

std::vector<double> LearnedRestrictions::predict(std::span<const SearchSpace::Index> configs) const {
    std::vector<double> p(configs.size(), 1.0);
    if (m_learned.empty())
        return p;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        std::vector<std::uint32_t> digits = m_space->digits(configs[i]);
        for (const Learned& learned : m_learned)
            if (!holds(m_rules[learned.rule], digits))
                p[i] /= double(learned.explained + 1);
    }
    return p;
}

std::vector<std::string> LearnedRestrictions::describe() const {
    std::vector<std::string> lines;
    for (const Learned& learned : m_learned)
        lines.push_back(m_rules[learned.rule].text);
    return lines;
}

} // namespace ts
