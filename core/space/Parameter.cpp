#include "space/Parameter.h"

namespace ts {

const char* toString(ParameterType type) {
    switch (type) {
    case ParameterType::Integer:
        return "int";
    case ParameterType::Real:
        return "float";
    case ParameterType::String:
        return "string";
    case ParameterType::Bool:
        return "bool";
    }
    return "int";
}

} // namespace ts
