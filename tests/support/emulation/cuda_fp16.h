// Stands in for the CUDA toolkit header when a kernel source runs on the CPU (CudaHostEmulation.h).
#pragma once
#include "CudaHostEmulation.h"
