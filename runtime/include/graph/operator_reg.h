// opgen host runtime: CANN's graph/operator_reg.h, the REG_OP prototype macros of the graph
// engine. Host code of CANN's open libraries includes an op's op_graph/<op>_proto.h (ops-nn's
// clipped_swiglu_tiling.h does) for its constants, not to build graphs: opgen takes the op's
// interface from its OpDef, so here a REG_OP(...) chain compiles to nothing. Each macro takes its
// arguments variadically, as they hold braces with commas (`.ATTR(axes, ListInt, {1, 2})`).
#pragma once
#include "graph/operator.h"

namespace ge {
namespace opgen_proto {
struct Chain {
    constexpr const Chain& Skip() const { return *this; }
};
}  // namespace opgen_proto
}  // namespace ge

#define REG_OP(x)                                                                 \
    namespace op {                                                                \
    struct opgen_proto_##x {                                                      \
        static void Declare() { (void)::ge::opgen_proto::Chain()
#define INPUT(...) Skip()
#define OPTIONAL_INPUT(...) Skip()
#define DYNAMIC_INPUT(...) Skip()
#define OUTPUT(...) Skip()
#define DYNAMIC_OUTPUT(...) Skip()
#define ATTR(...) Skip()
#define REQUIRED_ATTR(...) Skip()
#define DATATYPE(...) Skip()
#define GRAPH(...) Skip()
#define DYNAMIC_GRAPH(...) Skip()
#define INFER_SHAPE_AND_TYPE(...) Skip()
#define OP_END_FACTORY_REG(x) Skip(); } };  }
