#include "scale_add_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus ScaleAddTiling(gert::TilingContext* context)
{
    ScaleAddTilingData* t = context->GetTilingData<ScaleAddTilingData>();
    const uint32_t n = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    t->blockLength = n / 4;
    t->alpha = *alpha;
    context->SetBlockDim(4);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleAddCustom : public OpDef {
public:
    explicit ScaleAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(2.0f);
        this->AICore().SetTiling(optiling::ScaleAddTiling).AddConfig("ascend910b");
    }
};
OP_ADD(ScaleAddCustom);
}  // namespace ops
