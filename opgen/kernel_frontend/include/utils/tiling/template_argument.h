// opgen kernel frontend stub: another path of CANN's tiling-key header.
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
