#include "deploy/CppSource.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <iterator>

namespace ts {

namespace {

// C++20 keywords and alternative tokens, the contextual names a namespace cannot take in every position
// (import and module start declarations), GNU's typeof, and `defined`, which no #ifdef may test.
constexpr std::string_view kKeywords[]{"alignas",
                                       "alignof",
                                       "and",
                                       "and_eq",
                                       "asm",
                                       "auto",
                                       "bitand",
                                       "bitor",
                                       "bool",
                                       "break",
                                       "case",
                                       "catch",
                                       "char",
                                       "char8_t",
                                       "char16_t",
                                       "char32_t",
                                       "class",
                                       "compl",
                                       "concept",
                                       "const",
                                       "consteval",
                                       "constexpr",
                                       "constinit",
                                       "const_cast",
                                       "continue",
                                       "co_await",
                                       "co_return",
                                       "co_yield",
                                       "decltype",
                                       "default",
                                       "delete",
                                       "do",
                                       "double",
                                       "dynamic_cast",
                                       "else",
                                       "enum",
                                       "explicit",
                                       "export",
                                       "extern",
                                       "false",
                                       "float",
                                       "for",
                                       "friend",
                                       "goto",
                                       "if",
                                       "inline",
                                       "int",
                                       "long",
                                       "mutable",
                                       "namespace",
                                       "new",
                                       "noexcept",
                                       "not",
                                       "not_eq",
                                       "nullptr",
                                       "operator",
                                       "or",
                                       "or_eq",
                                       "private",
                                       "protected",
                                       "public",
                                       "register",
                                       "reinterpret_cast",
                                       "requires",
                                       "return",
                                       "short",
                                       "signed",
                                       "sizeof",
                                       "static",
                                       "static_assert",
                                       "static_cast",
                                       "struct",
                                       "switch",
                                       "template",
                                       "this",
                                       "thread_local",
                                       "throw",
                                       "true",
                                       "try",
                                       "typedef",
                                       "typeid",
                                       "typename",
                                       "union",
                                       "unsigned",
                                       "using",
                                       "virtual",
                                       "void",
                                       "volatile",
                                       "wchar_t",
                                       "while",
                                       "xor",
                                       "xor_eq",
                                       "import",
                                       "module",
                                       "typeof",
                                       "defined",
                                       "atomic_cancel",
                                       "atomic_commit",
                                       "atomic_noexcept",
                                       "reflexpr",
                                       "synchronized",
                                       "transaction_safe",
                                       "transaction_safe_dynamic"};

// Lower-case macros of the C and C++ standard libraries and of compilers in their GNU modes. The generated
// header guards itself with #error against any other macro of its namespace's names.
constexpr std::string_view kMacros[]{"linux",   "unix",   "i386",     "sun",      "sparc",  "mips",
                                     "vax",     "errno",  "assert",   "offsetof", "setjmp", "va_arg",
                                     "va_copy", "va_end", "va_start", "stdin",    "stdout", "stderr"};

bool isIdentifier(std::string_view name) {
    return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
           std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
           });
}

bool isReserved(std::string_view name, bool global) {
    return name.find("__") != std::string_view::npos ||
           (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') ||
           (global && name[0] == '_');
}

// std, std followed by digits, and posix are the standard library's; main at global scope is the program's.
bool isTaken(std::string_view name, bool global) {
    const bool stdN = name.size() > 3 && name.substr(0, 3) == "std" &&
                      std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
    return name == "std" || stdN || name == "posix" || (global && name == "main");
}

template <std::size_t N> bool contains(const std::string_view (&list)[N], std::string_view name) {
    return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// The namespace as the message shows it: quoted, control bytes escaped, invalid UTF-8 replaced.
std::string shown(const std::string& space) {
    return nlohmann::json(space).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

std::string CppSource::stringView(std::string_view text) {
    std::string out = "std::string_view(\"";
    for (const unsigned char c : text) {
        if (c == '"' || c == '\\' || c == '?')
            out += fmt::format("\\{}", static_cast<char>(c));
        else if (c < 0x20 || c >= 0x7f)
            out += fmt::format("\\{:03o}", c); // three digits: a following digit never joins the escape
        else
            out += static_cast<char>(c);
    }
    return out + fmt::format("\", {})", text.size());
}

void CppSource::checkNamespace(const std::string& space) {
    std::string_view rest = space;
    for (bool global = true;; global = false) {
        const std::size_t end = rest.find("::");
        const std::string_view name = rest.substr(0, end);
        if (!isIdentifier(name))
            throw Error(
                fmt::format("The C++ namespace {} is not a name: identifiers of letters, digits and _ "
                            "that do not start with a digit, nested with ::.",
                            shown(space)));
        if (contains(kKeywords, name))
            throw Error(
                fmt::format("The C++ namespace {} is not a name: {} is a C++ keyword.", shown(space), name));
        if (isReserved(name, global))
            throw Error(fmt::format("The C++ namespace {} is reserved to the compiler and standard library "
                                    "(a name holding __, starting with _ and a capital, or at global scope "
                                    "with _).",
                                    shown(space)));
        if (isTaken(name, global))
            throw Error(fmt::format("The C++ namespace {} is taken: {} belongs to the standard library or "
                                    "the program.",
                                    shown(space), name));
        if (contains(kMacros, name))
            throw Error(fmt::format("The C++ namespace {} is not usable: {} is a macro of compilers or the "
                                    "standard library.",
                                    shown(space), name));
        if (end == std::string_view::npos)
            return;
        rest.remove_prefix(end + 2);
    }
}

} // namespace ts
