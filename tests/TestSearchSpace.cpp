#include "ErrorOf.h"
#include "space/ConstraintProgram.h"
#include "space/Expression.h"
#include "space/SearchSpace.h"
#include "space/T1Reader.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

using namespace ts;
using Index = SearchSpace::Index;

namespace {

const std::filesystem::path kSpaces = std::filesystem::path(TUNESCOPE_RESOURCES) / "spaces";

using ts::test::errorOf;

std::vector<Value> ints(std::initializer_list<std::int64_t> list) {
    std::vector<Value> out;
    for (const auto i : list) {
        out.emplace_back(std::in_place_type<std::int64_t>, i);
    }
    return out;
}

std::vector<double> range(int start, int stop, int step = 1) {
    std::vector<double> out;
    for (int i = start; i < stop; i += step) {
        out.push_back(i);
    }
    return out;
}

// Independent reference: walks the product with an odometer (last parameter fastest, so the index is just a
// counter) and keeps the indices the predicate accepts.
std::vector<Index> bruteForce(const std::vector<std::vector<double>>& values,
                              const std::function<bool(const std::vector<double>&)>& accept) {
    std::vector<std::size_t> digit(values.size(), 0);
    std::vector<double> current(values.size());
    std::vector<Index> valid;
    for (Index index = 0;; ++index) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            current[i] = values[i][digit[i]];
        }
        if (accept(current)) {
            valid.push_back(index);
        }
        std::size_t i = values.size();
        while (i > 0) {
            --i;
            if (++digit[i] < values[i].size()) {
                break;
            }
            digit[i] = 0;
            if (i == 0) {
                return valid;
            }
        }
    }
}

// a [1,2,3,4], b [1,2,4,8,16], c ['x','y'], d [0.5,1.0,2.0], e [True,False]: 240 configs, mixed types.
std::vector<Parameter> smallParameters() {
    return {
        {"a", ParameterType::Integer, ints({1, 2, 3, 4})},
        {"b", ParameterType::Integer, ints({1, 2, 4, 8, 16})},
        {"c", ParameterType::String, {std::string("x"), std::string("y")}},
        {"d", ParameterType::Real, {0.5, 1.0, 2.0}},
        {"e", ParameterType::Bool, {true, false}},
    };
}

const std::vector<std::string> kSmallConstraints{"a * b <= 16", "c == 'x' or d >= 1", "a % 2 == 0 or b > 2",
                                                 "e or a != 3", "b / a >= 0.5"};

SearchSpace smallSpace() {
    return SearchSpace(smallParameters(), kSmallConstraints);
}

// The same constraints written as plain C++ over nested loops.
std::vector<Index> smallSpaceBruteForce() {
    const std::vector<std::int64_t> as{1, 2, 3, 4};
    const std::vector<std::int64_t> bs{1, 2, 4, 8, 16};
    const std::vector<std::string> cs{"x", "y"};
    const std::vector<double> ds{0.5, 1.0, 2.0};
    const std::vector<bool> es{true, false};
    std::vector<Index> valid;
    Index index = 0;
    for (const auto a : as) {
        for (const auto b : bs) {
            for (const auto& c : cs) {
                for (const auto d : ds) {
                    for (const bool e : es) {
                        if (a * b <= 16 && (c == "x" || d >= 1) && (a % 2 == 0 || b > 2) && (e || a != 3) &&
                            static_cast<double>(b) / static_cast<double>(a) >= 0.5) {
                            valid.push_back(index);
                        }
                        ++index;
                    }
                }
            }
        }
    }
    return valid;
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

} // namespace

class TestSearchSpace : public QObject {
    Q_OBJECT

private slots:
    void smallSpaceMatchesBruteForce();
    void compiledConstraintsMatchTheInterpreter();
    void unconstrainedSpaceIsTheProduct();
    void constantConstraints();
    void hotspotMatchesBruteForce();
    void convolutionMatchesBruteForce();
    void dedispersionMatchesBruteForce();
    void gemmMatchesBruteForce();
    void t1Definitions();
    void indexConfigRoundTrips();
    void keys();
    void neighboursFollowTheirDefinition();
    void sampleIsDistinctDeterministicAndCapped();
    void sampleIsUniform();
    void domains();
    void fromValidSet();
    void errors();
    void t1ReaderErrors();
};

void TestSearchSpace::smallSpaceMatchesBruteForce() {
    const SearchSpace space = smallSpace();
    QCOMPARE(space.productSize(), Index{240});
    QCOMPARE(space.dimension(), std::size_t{5});
    const auto expected = smallSpaceBruteForce();
    QVERIFY(!expected.empty());
    QVERIFY(expected.size() < 240);
    QCOMPARE(space.validIndices(), expected);
    QCOMPARE(space.validCount(), Index{expected.size()});
    QCOMPARE(space.constraints(), kSmallConstraints);
    QCOMPARE(space.parameterIndex("c"), std::optional<std::size_t>(2));
    QVERIFY(!space.parameterIndex("z").has_value());
    for (Index i = 0; i < space.productSize(); ++i) {
        const bool inExpected = std::binary_search(expected.begin(), expected.end(), i);
        QCOMPARE(space.isValid(i), inExpected);
    }
}

// Every construct the compiled program takes (space/ConstraintProgram), against the tree-walking interpreter
// (Expression::test) over the whole product: the numeric constraints below all compile.
void TestSearchSpace::compiledConstraintsMatchTheInterpreter() {
    const std::vector<Parameter> parameters{
        {"x", ParameterType::Integer, ints({1, 2, 3, 4, 6})},
        {"y", ParameterType::Integer, ints({-2, -1, 1, 3})},
        {"z", ParameterType::Real, {0.5, 1.5, 2.5}},
    };
    const std::vector<std::string> constraints{
        "min(x, y + 4) * 2 <= max([x, 3, z * 2]) + 4",
        "abs(y) ** 2 // x % 3 != 2 or -x < y < x",
        "int(z * x) in [1, 3, 4, 7, 9, 15] or round(z) not in [2, 4]",
        "(x / y if y > 0 else float(x) - y) >= 0.5 and not (x == 6 and y == -2)",
    };
    const SearchSpace space(parameters, constraints);
    std::vector<Expression> parsed;
    std::vector<ConstraintProgram> programs;
    const ConstraintProgram::SlotOf slotOf = [&](std::string_view name) -> std::optional<std::uint32_t> {
        for (std::uint32_t i = 0; i < parameters.size(); ++i)
            if (parameters[i].name == name)
                return i;
        return std::nullopt;
    };
    for (const auto& text : constraints) {
        parsed.push_back(Expression::parse(text, "constraint"));
        const auto program = ConstraintProgram::compile(parsed.back().root(), slotOf);
        QVERIFY2(program.has_value(), text.c_str());
        programs.push_back(*program);
    }
    std::vector<Index> expected;
    for (Index index = 0; index < space.productSize(); ++index) {
        const Config config = space.config(index);
        const Expression::Lookup lookup = [&](std::string_view name) -> std::optional<Value> {
            for (std::size_t i = 0; i < parameters.size(); ++i)
                if (parameters[i].name == name)
                    return config[i];
            return std::nullopt;
        };
        PythonNumber numbers[3];
        for (std::size_t i = 0; i < 3; ++i) {
            const double v = toNumber(config[i]);
            numbers[i] = parameters[i].type == ParameterType::Integer
                             ? PythonNumber::fromInt(static_cast<std::int64_t>(v))
                             : PythonNumber::fromDouble(v);
        }
        bool all = true;
        for (std::size_t k = 0; k < parsed.size(); ++k) {
            const bool holds = parsed[k].test(lookup);
            QCOMPARE(programs[k].test(numbers), std::optional<bool>(holds));
            all = all && holds;
        }
        if (all)
            expected.push_back(index);
    }
    QVERIFY(!expected.empty());
    QVERIFY(expected.size() < static_cast<std::size_t>(space.productSize()));
    QCOMPARE(space.validIndices(), expected);
}

void TestSearchSpace::unconstrainedSpaceIsTheProduct() {
    const SearchSpace space(smallParameters(), {});
    QCOMPARE(space.productSize(), Index{240});
    QCOMPARE(space.validCount(), Index{240});
    for (Index i = 0; i < 240; ++i) {
        QCOMPARE(space.validIndices()[i], i);
    }
    // Only one parameter constrained: the others are combined without being searched.
    const SearchSpace partial(smallParameters(), {"d > 0.5"});
    QCOMPARE(partial.validCount(), Index{160});
    for (const auto index : partial.validIndices()) {
        QVERIFY(toNumber(partial.config(index)[3]) > 0.5);
    }
}

void TestSearchSpace::constantConstraints() {
    QCOMPARE(SearchSpace(smallParameters(), {"1 < 2"}).validCount(), Index{240});
    QVERIFY_THROWS_EXCEPTION(Error, SearchSpace(smallParameters(), {"2 < 1"}));
    // Division by zero is an error naming the constraint and the config (Python raises), not a false
    // constraint; guarded as in Python, the constraint is fine.
    const std::vector<Parameter> withZero{{"a", ParameterType::Integer, ints({0, 1, 2, 4})}};
    QCOMPARE(errorOf([&] { (void)SearchSpace(withZero, {"8 % a == 0"}); }),
             std::string("Cannot evaluate constraint \"8 % a == 0\" at a=0: modulo by zero."));
    const SearchSpace space(withZero, {"a != 0 and 8 % a == 0"});
    QCOMPARE(space.validIndices(), (std::vector<Index>{1, 2, 3}));
    // A constant constraint that divides by zero says so, not "no configuration satisfies".
    QCOMPARE(errorOf([&] { (void)SearchSpace(withZero, {"1 / 0 > 1"}); }),
             std::string("Cannot evaluate constraint \"1 / 0 > 1\": division by zero."));
}

void TestSearchSpace::hotspotMatchesBruteForce() {
    const auto definition = readT1Space(kSpaces / "hotspot_milo.json");
    const SearchSpace& space = definition.space;
    // Product and valid count also computed with Python's itertools.product and eval() of the conditions.
    QCOMPARE(space.productSize(), Index{4'440'000});
    QCOMPARE(space.validCount(), Index{82'984});

    std::vector<double> blockX{1, 2, 4, 8, 16};
    for (int x = 32; x <= 1024; x += 32) {
        blockX.push_back(x);
    }
    const std::vector<std::vector<double>> values{
        {4096},       {4096},       blockX, {1, 2, 4, 8, 16, 32}, range(1, 11),
        range(1, 11), range(1, 11), {10},   range(1, 11),         {0, 1}};
    const auto expected = bruteForce(values, [](const std::vector<double>& v) {
        const double bx = v[2], by = v[3], tx = v[4], ty = v[5], ttf = v[6], luf = v[8], sh = v[9];
        return bx * by >= 32 && std::fmod(ttf, luf) == 0 && bx * by <= 1024 &&
               (bx * tx + ttf * 2) * (by * ty + ttf * 2) * (2 + sh) * 4 <= 49152;
    });
    QCOMPARE(Index{expected.size()}, Index{82'984});
    QCOMPARE(space.validIndices(), expected);
}

void TestSearchSpace::convolutionMatchesBruteForce() {
    const SearchSpace space = readT1Space(kSpaces / "convolution_milo.json").space;
    // Python itertools.product + eval() of the conditions: 10240 configs, 4362 valid.
    QCOMPARE(space.productSize(), Index{10'240});
    QCOMPARE(space.validCount(), Index{4'362});
    const std::vector<std::vector<double>> values{range(16, 257, 16),
                                                  {1, 2, 4, 8, 16},
                                                  range(1, 5),
                                                  range(1, 5),
                                                  {0, 1},
                                                  {0, 1},
                                                  {0, 1},
                                                  {1},
                                                  {15},
                                                  {15}};
    const auto expected = bruteForce(values, [](const std::vector<double>& v) {
        const double bx = v[0], by = v[1], tx = v[2], ty = v[3], padding = v[5], shmem = v[6], fh = v[8],
                     fw = v[9];
        return (padding == 0 || std::fmod(bx, 32) != 0) && bx * by <= 1024 && (padding == 0 || shmem != 0) &&
               (shmem == 0 || (bx * tx + (fw - 1)) * (by * ty + (fh - 1)) < 12 * 1024);
    });
    QCOMPARE(space.validIndices(), expected);
}

void TestSearchSpace::dedispersionMatchesBruteForce() {
    const SearchSpace space = readT1Space(kSpaces / "dedispersion_milo.json").space;
    // Python itertools.product + eval() of the conditions: 22272 configs, 11130 valid.
    QCOMPARE(space.productSize(), Index{22'272});
    QCOMPARE(space.validCount(), Index{11'130});
    const std::vector<std::vector<double>> values{
        {1, 2, 4, 8, 16, 32}, range(32, 257, 8), {1}, range(1, 5), range(1, 9), {0, 1}, {0, 1}, {0}};
    const auto expected = bruteForce(values, [](const std::vector<double>& v) {
        const double product = v[0] * v[1];
        return 32 <= product && product <= 1024 && (v[3] > 1 || v[5] == 0) && (v[4] > 1 || v[6] == 0);
    });
    QCOMPARE(space.validIndices(), expected);
}

void TestSearchSpace::gemmMatchesBruteForce() {
    const SearchSpace space = readT1Space(kSpaces / "gemm_milo.json").space;
    // Python itertools.product + eval() of the conditions: 663552 configs, 116928 valid.
    QCOMPARE(space.productSize(), Index{663'552});
    QCOMPARE(space.validCount(), Index{116'928});
    const std::vector<double> wg{16, 32, 64, 128}, dim{8, 16, 32}, vw{1, 2, 4, 8}, bit{0, 1};
    const std::vector<std::vector<double>> values{{0}, wg, wg,  {16, 32}, dim, dim, dim, dim, {2},
                                                  vw,  vw, bit, bit,      bit, bit, {1}, {32}};
    const auto expected = bruteForce(values, [](const std::vector<double>& v) {
        const double mwg = v[1], nwg = v[2], kwg = v[3], mdimc = v[4], ndimc = v[5], mdima = v[6],
                     ndimb = v[7], kwi = v[8], vwm = v[9], vwn = v[10];
        return std::fmod(kwg, kwi) == 0 && std::fmod(mwg, mdimc * vwm) == 0 &&
               std::fmod(nwg, ndimc * vwn) == 0 && std::fmod(mwg, mdima * vwm) == 0 &&
               std::fmod(nwg, ndimb * vwn) == 0 && std::fmod(kwg, mdimc * ndimc / mdima) == 0 &&
               std::fmod(kwg, mdimc * ndimc / ndimb) == 0 &&
               !(mwg == 128 && nwg == 128 && mdimc == 8 && ndimc == 8);
    });
    QCOMPARE(space.validIndices(), expected);
}

void TestSearchSpace::t1Definitions() {
    const auto hotspot = readT1Space(kSpaces / "hotspot_milo.json");
    QCOMPARE(hotspot.name, std::string("hotspot"));
    QCOMPARE(hotspot.kernelName, std::string("calculate_temp"));
    QCOMPARE(hotspot.space.parameters()[2].name, std::string("block_size_x"));
    QCOMPARE(hotspot.space.parameters()[2].values.size(), std::size_t{37});
    QVERIFY(hotspot.space.parameters()[2].type == ParameterType::Integer);
    QCOMPARE(hotspot.space.constraints().size(), std::size_t{4});
    QCOMPARE(hotspot.defaults.size(), std::size_t{10});
    QCOMPARE(hotspot.defaults[2], Value{std::int64_t{256}});
    QCOMPARE(hotspot.defaults[7], Value{std::int64_t{1}}); // max_tfactor's default 1 is not in its list [10]
    QVERIFY(!hotspot.defaultIndex.has_value());

    const auto gemm = readT1Space(kSpaces / "gemm_milo.json");
    QCOMPARE(gemm.defaults[0], Value{std::int64_t{0}}); // "Default": [0]
    QVERIFY(gemm.defaultIndex.has_value());
    QCOMPARE(gemm.space.key(*gemm.defaultIndex), std::string("0,64,64,32,32,32,32,32,2,2,2,1,1,1,1,1,32"));
}

void TestSearchSpace::indexConfigRoundTrips() {
    const SearchSpace small = smallSpace();
    for (Index i = 0; i < small.productSize(); ++i) {
        const auto digits = small.digits(i);
        QCOMPARE(small.indexOfDigits(digits), i);
        const Config config = small.config(i);
        for (std::size_t p = 0; p < config.size(); ++p) {
            QCOMPARE(config[p], small.parameters()[p].values[digits[p]]);
        }
        QCOMPARE(small.indexOf(config), std::optional<Index>(i));
        QCOMPARE(small.indexOfKey(small.key(i)), std::optional<Index>(i));
    }
    // Mixed radix, last parameter fastest: digits (1, 2, 0, 1, 1) -> (((1*5+2)*2+0)*3+1)*2+1.
    const std::vector<std::uint32_t> digits{1, 2, 0, 1, 1};
    QCOMPARE(small.indexOfDigits(digits), Index{87});
    QCOMPARE(small.digits(87), digits);

    const SearchSpace hotspot = readT1Space(kSpaces / "hotspot_milo.json").space;
    const auto& valid = hotspot.validIndices();
    for (std::size_t k = 0; k < valid.size(); k += 97) {
        const Index i = valid[k];
        QCOMPARE(hotspot.indexOf(hotspot.config(i)), std::optional<Index>(i));
        QCOMPARE(hotspot.indexOfKey(hotspot.key(i)), std::optional<Index>(i));
        QCOMPARE(hotspot.indexOfDigits(hotspot.digits(i)), i);
    }
    // Numeric values match numerically: an int parameter finds 32.0, a float parameter finds 1.
    Config config{2.0, std::int64_t{16}, std::string("x"), std::int64_t{1}, true};
    QCOMPARE(small.indexOf(config), small.indexOfDigits(std::vector<std::uint32_t>{1, 4, 0, 1, 0}));
    config[2] = std::string("z");
    QVERIFY(!small.indexOf(config).has_value());
    config[2] = std::int64_t{1};
    QVERIFY(!small.indexOf(config).has_value());
    QVERIFY(!small.indexOf(Config{std::int64_t{1}}).has_value());
}

void TestSearchSpace::keys() {
    const SearchSpace small = smallSpace();
    QCOMPARE(small.key(0), std::string("1,1,x,0.5,True"));
    QCOMPARE(small.key(small.productSize() - 1), std::string("4,16,y,2.0,False"));
    QCOMPARE(small.indexOfKey("1,1,x,0.5,True"), std::optional<Index>(0));
    QCOMPARE(small.indexOfKey("1.0,1,x,0.5,True"), std::optional<Index>(0));
    QCOMPARE(small.indexOfKey("4,16,y,2,False"), std::optional<Index>(239));
    QVERIFY(!small.indexOfKey("1,1,z,0.5,True").has_value());
    QVERIFY(!small.indexOfKey("5,1,x,0.5,True").has_value());
    QVERIFY(!small.indexOfKey("1,1,x").has_value());
    QVERIFY(!small.indexOfKey("").has_value());

    const SearchSpace hotspot = readT1Space(kSpaces / "hotspot_milo.json").space;
    const auto index = hotspot.indexOfKey("4096,4096,256,2,1,1,2,10,2,1");
    QVERIFY(index.has_value());
    QVERIFY(hotspot.isValid(*index));
    QCOMPARE(hotspot.key(*index), std::string("4096,4096,256,2,1,1,2,10,2,1"));
}

void TestSearchSpace::neighboursFollowTheirDefinition() {
    const SearchSpace space = smallSpace();
    const auto n = space.productSize();
    for (Index i = 0; i < n; ++i) {
        const auto di = space.digits(i);
        std::vector<Index> hamming, adjacent, hammingValid, adjacentValid;
        for (Index j = 0; j < n; ++j) {
            const auto dj = space.digits(j);
            int differing = 0;
            bool oneStep = true;
            for (std::size_t p = 0; p < di.size(); ++p) {
                if (di[p] != dj[p]) {
                    ++differing;
                    oneStep = oneStep && (di[p] + 1 == dj[p] || dj[p] + 1 == di[p]);
                }
            }
            if (differing != 1) {
                continue;
            }
            hamming.push_back(j);
            if (space.isValid(j)) {
                hammingValid.push_back(j);
            }
            if (oneStep) {
                adjacent.push_back(j);
                if (space.isValid(j)) {
                    adjacentValid.push_back(j);
                }
            }
        }
        QCOMPARE(space.neighbours(i, Neighbourhood::Hamming, SpaceMode::Product), hamming);
        QCOMPARE(space.neighbours(i, Neighbourhood::Adjacent, SpaceMode::Product), adjacent);
        QCOMPARE(space.neighbours(i, Neighbourhood::Hamming, SpaceMode::Constrained), hammingValid);
        QCOMPARE(space.neighbours(i, Neighbourhood::Adjacent, SpaceMode::Constrained), adjacentValid);
    }
    // 3 + 4 + 1 + 2 + 1 others in the lists.
    QCOMPARE(space.neighbours(0, Neighbourhood::Hamming, SpaceMode::Product).size(), std::size_t{11});
    QCOMPARE(space.neighbours(0, Neighbourhood::Adjacent, SpaceMode::Product).size(), std::size_t{5});
}

void TestSearchSpace::sampleIsDistinctDeterministicAndCapped() {
    const SearchSpace hotspot = readT1Space(kSpaces / "hotspot_milo.json").space;
    for (const auto mode : {SpaceMode::Constrained, SpaceMode::Product}) {
        for (const std::size_t count : {std::size_t{1}, std::size_t{50}, std::size_t{30'000}}) {
            std::mt19937_64 rng(42);
            const auto sample = hotspot.sample(count, mode, rng);
            QCOMPARE(sample.size(), count);
            const std::set<Index> distinct(sample.begin(), sample.end());
            QCOMPARE(distinct.size(), count);
            for (const auto index : sample) {
                QVERIFY(index < hotspot.productSize());
                if (mode == SpaceMode::Constrained) {
                    QVERIFY(hotspot.isValid(index));
                }
            }
            std::mt19937_64 same(42);
            QCOMPARE(hotspot.sample(count, mode, same), sample);
            if (count > 1) {
                std::mt19937_64 other(43);
                QVERIFY(hotspot.sample(count, mode, other) != sample);
            }
        }
    }
    // Dense path (most of the domain) and the cap at the domain size.
    const SearchSpace small = smallSpace();
    std::mt19937_64 rng(7);
    const auto dense = small.sample(small.validCount() - 1, SpaceMode::Constrained, rng);
    QCOMPARE(std::set<Index>(dense.begin(), dense.end()).size(), std::size_t(small.validCount() - 1));
    const auto all = small.sample(10'000, SpaceMode::Constrained, rng);
    QCOMPARE(std::set<Index>(all.begin(), all.end()),
             std::set<Index>(small.validIndices().begin(), small.validIndices().end()));
    const auto product = small.sample(10'000, SpaceMode::Product, rng);
    QCOMPARE(product.size(), std::size_t{240});
    QVERIFY(small.sample(0, SpaceMode::Product, rng).empty());
}

void TestSearchSpace::sampleIsUniform() {
    // Each position of a 240-config domain should be drawn about equally often by both algorithms.
    const SearchSpace small(smallParameters(), {});
    for (const std::size_t count :
         {std::size_t{5}, std::size_t{120}}) { // sparse (Floyd), dense (Fisher-Yates)
        std::mt19937_64 rng(1);
        std::vector<int> hits(240, 0);
        const int trials = 24'000 / static_cast<int>(count) * 20;
        for (int t = 0; t < trials; ++t) {
            for (const auto index : small.sample(count, SpaceMode::Product, rng)) {
                ++hits[index];
            }
        }
        const double expected = static_cast<double>(trials) * static_cast<double>(count) / 240.0; // 2000
        for (const int h : hits) {
            QVERIFY2(std::abs(h - expected) < 0.15 * expected, std::to_string(h).c_str());
        }
    }
}

void TestSearchSpace::domains() {
    const SearchSpace space = smallSpace();
    QCOMPARE(space.domainSize(SpaceMode::Product), Index{240});
    QCOMPARE(space.domainSize(SpaceMode::Constrained), space.validCount());
    QCOMPARE(space.domainAt(SpaceMode::Product, 17), Index{17});
    QCOMPARE(space.domainAt(SpaceMode::Constrained, 3), space.validIndices()[3]);
}

void TestSearchSpace::fromValidSet() {
    const auto space = SearchSpace::fromValidSet(smallParameters(), {9, 3, 9, 200, 0});
    QCOMPARE(space.validIndices(), (std::vector<Index>{0, 3, 9, 200}));
    QCOMPARE(space.productSize(), Index{240});
    QVERIFY(space.constraints().empty());
    QVERIFY(space.isValid(200));
    QVERIFY(!space.isValid(4));
    QVERIFY_THROWS_EXCEPTION(Error, SearchSpace::fromValidSet(smallParameters(), {240}));
}

void TestSearchSpace::errors() {
    QCOMPARE(errorOf([] { SearchSpace(smallParameters(), {"a > 100"}); }),
             std::string("No configuration satisfies the constraints (240 configurations in the product)."));
    QCOMPARE(errorOf([] {
                 SearchSpace(smallParameters(), {"a > 1", "x > 1"});
             }),
             std::string("Constraint \"x > 1\" names \"x\", which is not a parameter."));
    QCOMPARE(errorOf([] { SearchSpace(smallParameters(), {"a * * b"}); }),
             std::string("Cannot parse constraint \"a * * b\": unexpected '*' at column 5."));
    auto empty = smallParameters();
    empty[1].values.clear();
    QCOMPARE(errorOf([&] { SearchSpace(empty, {}); }), std::string("Parameter \"b\" has no values."));
    auto duplicate = smallParameters();
    duplicate.push_back(duplicate.front()); // a second "a"
    QCOMPARE(errorOf([&] { SearchSpace(duplicate, {}); }), std::string("Parameter \"a\" is defined twice."));
    QVERIFY_THROWS_EXCEPTION(Error, SearchSpace({}, {}));
    // A type error in a constraint (string < int) is reported, not silently dropped.
    QVERIFY_THROWS_EXCEPTION(Error, SearchSpace(smallParameters(), {"c < 1"}));
}

void TestSearchSpace::t1ReaderErrors() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = std::filesystem::path(dir.path().toStdString()) / "broken.json";
    const auto withParameters = [](const std::string& parameters, const std::string& conditions = "[]") {
        return R"({"General": {"BenchmarkName": "b"}, "ConfigurationSpace": {"TuningParameters": )" +
               parameters + R"(, "Conditions": )" + conditions + "}}";
    };

    writeFile(path, withParameters(R"([{"Name": "a", "Type": "int", "Values": "[1, 2]"},
                                       {"Name": "b", "Type": "int", "Values": "[1, 2"}])"));
    QCOMPARE(errorOf([&] { readT1Space(path); }),
             std::string(
                 "broken.json: \"ConfigurationSpace.TuningParameters[1].Values\" is not a list expression: "
                 "Cannot parse value list \"[1, 2\": unexpected end at column 6."));

    writeFile(path, withParameters(R"([{"Name": "a", "Type": "int", "Values": [1, 2.5]}])"));
    QVERIFY(errorOf([&] {
                readT1Space(path);
            }).starts_with("broken.json: \"ConfigurationSpace.TuningParameters[0].Values\""));

    writeFile(path, withParameters(R"([{"Name": "a", "Type": "complex", "Values": [1]}])"));
    QVERIFY(errorOf([&] {
                readT1Space(path);
            }).starts_with("broken.json: \"ConfigurationSpace.TuningParameters[0].Type\""));

    writeFile(path, withParameters(R"([{"Name": "a", "Type": "int", "Values": [1, 2]}])",
                                   R"([{"Expression": "x > 1"}])"));
    QCOMPARE(errorOf([&] { readT1Space(path); }),
             std::string("broken.json: Constraint \"x > 1\" names \"x\", which is not a parameter."));

    writeFile(path, R"({"ConfigurationSpace": {}})");
    QVERIFY(errorOf([&] {
                readT1Space(path);
            }).starts_with("broken.json: \"ConfigurationSpace.TuningParameters\""));

    writeFile(path, "{not json");
    QVERIFY(errorOf([&] { readT1Space(path); }).starts_with("broken.json: not valid JSON"));

    QVERIFY(errorOf([&] { readT1Space(path.parent_path() / "missing.json"); }).starts_with("missing.json: "));

    // JSON arrays work as value lists, with the declared types.
    writeFile(path, withParameters(R"([{"Name": "a", "Type": "float", "Values": [1, 2.5], "Default": 1},
                                       {"Name": "s", "Type": "string", "Values": ["x", "y"]},
                                       {"Name": "f", "Type": "bool", "Values": [true, false]}])",
                                   R"([{"Expression": "s == 'y' or a > 2"}])"));
    const auto definition = readT1Space(path);
    QCOMPARE(definition.name, std::string("b"));
    QCOMPARE(definition.space.parameters()[0].values, (std::vector<Value>{1.0, 2.5}));
    QCOMPARE(definition.space.validCount(), Index{6});
    QCOMPARE(definition.space.key(0), std::string("1.0,x,True"));
    QCOMPARE(definition.defaults, (Config{1.0, std::string("x"), true}));
    QVERIFY(!definition.defaultIndex.has_value()); // 1.0,x,True breaks the condition
}

QTEST_APPLESS_MAIN(TestSearchSpace)
#include "TestSearchSpace.moc"
