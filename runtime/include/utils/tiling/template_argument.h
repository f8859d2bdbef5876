// opgen: another include path CANN installs its tiling-key header under (see
// ascendc/host_api/tiling/template_argument.h).
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
