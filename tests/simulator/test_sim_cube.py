"""The basic cube data path of the Atlas A2/A3 (opgen_sim/cube_mem.h, cube.h, cube_more.h): ND ->
NZ DataCopy into L1, LoadData (2D) into L0A/L0B with and without transposing, LoadDataWithTranspose
(b8/b16/b32 square matrices), the convolution load with LoadData3DParamsV2 (im2col with padding and
strides into L0A, transposed L0A and L0B), Mmad into L0C (fresh, accumulating, from a bias tensor in
the bias table or with cmatrixSource), unitFlag (its waits that could never end are errors) and
Fixpipe to GM (NZ -> ND with F322F16 or NoQuant, and NZ -> NZ) and to L1 with the quantisation
modes (QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8, DEQF16 from QUANT_PRE words; Int8 Channel Merge,
F32 Channel Split), against numpy
models of the layouts the reference documents (NZ/Zz/Zn fractals, the load2d.py pseudo-code, the
NZ2ND/NZ2NZ pseudo-code) and of the float accumulation order the simulator documents (each K block
of 16 halves summed in float in order, then added to the running value); and the rules the cube
APIs enforce."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;
using u8 = uint8_t;
using u16 = uint16_t;

struct CubeTiling {
    int32_t mode;
    uint32_t m;
    uint32_t k;
    uint32_t n;
    uint32_t quant;
};
REGISTER_TILING_DEFAULT(CubeTiling);

template <typename T>
__aicore__ inline void FillL(const LocalTensor<T>& t, uint32_t count, float v)
{
    for (uint32_t i = 0; i < count; ++i) t.SetValue(i, static_cast<T>(v));
}
template <typename T>
__aicore__ inline void Dump(GM_ADDR out, const LocalTensor<T>& t, uint32_t count)
{
    GlobalTensor<T> o;
    o.SetGlobalBuffer((__gm__ T*)out, count);
    for (uint32_t i = 0; i < count; ++i) o.SetValue(i, t.GetValue(i));
}
template <typename T>
__aicore__ inline void FillFromGm(const LocalTensor<T>& t, GM_ADDR src, uint32_t count)
{
    GlobalTensor<T> g;
    g.SetGlobalBuffer((__gm__ T*)src, count);
    for (uint32_t i = 0; i < count; ++i) t.SetValue(i, g.GetValue(i));
}
template <typename T>
__aicore__ inline GlobalTensor<T> FilledGm(GM_ADDR out, uint32_t count)
{
    GlobalTensor<T> o;
    o.SetGlobalBuffer((__gm__ T*)out, count);
    for (uint32_t i = 0; i < count; ++i) o.SetValue(i, static_cast<T>(85));
    return o;
}

// Fixpipe's conversions and layouts from an L0C (m x n, NZ, srcStride m16) filled from a; the
// quant words (n16 of them) in b, the first also the deqScalar; reluEn from t.quant.
__aicore__ inline void FixpipeCase(GM_ADDR a, GM_ADDR b, GM_ADDR out, const CubeTiling& t)
{
    const int32_t mode = t.mode;
    const uint32_t m = t.m, n = t.n, m16 = (m + 15) / 16 * 16, n16 = (n + 15) / 16 * 16;
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0C> l0c;
    GlobalTensor<uint64_t> words;
    words.SetGlobalBuffer((__gm__ uint64_t*)b, n16);
    LocalTensor<float> cf = l0c.Alloc<float>(m16 * n16);
    LocalTensor<int32_t> ci = cf.ReinterpretCast<int32_t>();
    FillFromGm(cf, a, m16 * n16);
    LocalTensor<uint64_t> qt = l1.Alloc<uint64_t>(n16);
    DataCopy(qt, words, DataCopyParams{1, (u16)(n16 * 8 / 32), 0, 0});
    FixpipeParamsV220 p{(u16)n, (u16)m, (u16)m16, m16, (t.quant & 1) != 0};
    p.deqScalar = words.GetValue(0);
    const uint32_t b8_bytes = (n16 + 31) / 32 * m16 * 32;  // NZ int8: 16 x 32 fractals
    if (mode == 40 || mode == 41) {  // float -> int8_t NZ into L1, then L1 -> GM
        LocalTensor<int8_t> d = l1.Alloc<int8_t>(b8_bytes);
        FillL(d, b8_bytes, 85.0f);
        p.quantPre = mode == 40 ? QuantMode_t::QF322B8_PRE : QuantMode_t::VQF322B8_PRE;
        if (mode == 40) {
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, p);
        } else {
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, qt, p);
        }
        GlobalTensor<int8_t> o;
        o.SetGlobalBuffer((__gm__ int8_t*)out, b8_bytes);
        DataCopy(o, d, DataCopyParams{1, (u16)(b8_bytes / 32), 0, 0});
    } else if (mode == 42) {  // float -> half NZ into L1 (F322F16)
        LocalTensor<half> d = l1.Alloc<half>(m16 * n16);
        FillL(d, m16 * n16, -7.0f);
        p.quantPre = QuantMode_t::F322F16;
        Fixpipe<half, float, CFG_NZ>(d, cf, p);
        GlobalTensor<half> o;
        o.SetGlobalBuffer((__gm__ half*)out, m16 * n16);
        DataCopy(o, d, DataCopyParams{1, (u16)(m16 * n16 * 2 / 32), 0, 0});
    } else if (mode == 43) {  // float -> int8_t ND in GM, tensor quantisation, rows n + 8 apart
        GlobalTensor<int8_t> o = FilledGm<int8_t>(out, m * (n + 8));
        p.dstStride = n + 8;
        p.quantPre = QuantMode_t::VQF322B8_PRE;
        Fixpipe<int8_t, float, CFG_ROW_MAJOR>(o, cf, qt, p);
    } else if (mode == 44) {  // float NZ in GM with isChannelSplit: 16 x 8 fractals
        GlobalTensor<float> o = FilledGm<float>(out, n * m16);
        p.isChannelSplit = true;
        Fixpipe<float, float, CFG_NZ>(o, cf, p);
    } else if (mode == 45) {  // int32_t -> int8_t ND in GM (REQ8)
        GlobalTensor<int8_t> o = FilledGm<int8_t>(out, m * n);
        p.dstStride = n;
        p.quantPre = QuantMode_t::REQ8;
        Fixpipe<int8_t, int32_t, CFG_ROW_MAJOR>(o, ci, p);
    } else if (mode == 46) {  // int32_t -> half ND in GM (DEQF16)
        GlobalTensor<half> o = FilledGm<half>(out, m * n);
        p.dstStride = n;
        p.quantPre = QuantMode_t::DEQF16;
        Fixpipe<half, int32_t, CFG_ROW_MAJOR>(o, ci, p);
    } else if (mode == 47) {  // int32_t -> int8_t NZ into L1 with the tensor (VREQ8)
        LocalTensor<int8_t> d = l1.Alloc<int8_t>(b8_bytes);
        FillL(d, b8_bytes, 85.0f);
        p.quantPre = QuantMode_t::VREQ8;
        Fixpipe<int8_t, int32_t, CFG_NZ>(d, ci, qt, p);
        GlobalTensor<int8_t> o;
        o.SetGlobalBuffer((__gm__ int8_t*)out, b8_bytes);
        DataCopy(o, d, DataCopyParams{1, (u16)(b8_bytes / 32), 0, 0});
    } else if (mode == 48) {  // the result written over its own quant tensor (L1 byte 0)
        LocalTensor<int8_t> d(TPosition::C1, 0, b8_bytes);
        p.quantPre = QuantMode_t::VQF322B8_PRE;
        Fixpipe<int8_t, float, CFG_NZ>(d, cf, qt, p);
        GlobalTensor<int8_t> o;
        o.SetGlobalBuffer((__gm__ int8_t*)out, b8_bytes);
        DataCopy(o, d, DataCopyParams{1, (u16)(b8_bytes / 32), 0, 0});
    } else if (mode >= 60 && mode <= 66) {  // modes 43, 45, 46, 47 by DataCopy(CO1) and registers
        LocalMemAllocator<Hardware::FIXBUF> fbm;
        LocalTensor<uint64_t> fb = fbm.Alloc<uint64_t>(n16);
        const u16 lines = (u16)((n16 * 8 + 127) / 128);
        if (mode == 66) {  // three 128-byte bursts, srcGap 0: each copies the first 16 words
            DataCopy(fb, qt, DataCopyParams{3, 1, 0, 1});
        } else {
            DataCopy(fb, qt, DataCopyParams{1, lines, 0, 0});
        }
        if (mode != 64) SetFixPipeConfig(mode == 65 ? fb[8] : fb);
        SetFixpipePreQuantFlag(words.GetValue(0));
        SetFixpipeNz2ndFlag(1, 0, 0);
        DataCopyCO12DstParams d{(u16)n, (u16)m, n + 8, (u16)m16, QuantMode_t::VQF322B8_PRE,
                                (uint8_t)(t.quant & 1), false, true};
        if (mode == 60 || mode >= 64) {  // as 43
            GlobalTensor<int8_t> o = FilledGm<int8_t>(out, m * (n + 8));
            DataCopy(o, cf, d);
        } else if (mode == 61) {  // as 45
            GlobalTensor<int8_t> o = FilledGm<int8_t>(out, m * n);
            d.dstStride = n;
            d.quantPre = QuantMode_t::REQ8;
            DataCopy(o, ci, d);
        } else if (mode == 62) {  // as 46
            GlobalTensor<half> o = FilledGm<half>(out, m * n);
            d.dstStride = n;
            d.quantPre = QuantMode_t::DEQF16;
            DataCopy(o, ci, d);
        } else {  // as 47: NZ into L1
            LocalTensor<int8_t> l1d = l1.Alloc<int8_t>(b8_bytes);
            FillL(l1d, b8_bytes, 85.0f);
            d.quantPre = QuantMode_t::VREQ8;
            d.nz2ndEn = false;
            d.dstStride = m16;
            DataCopy(l1d, ci, d);
            GlobalTensor<int8_t> o;
            o.SetGlobalBuffer((__gm__ int8_t*)out, b8_bytes);
            DataCopy(o, l1d, DataCopyParams{1, (u16)(b8_bytes / 32), 0, 0});
        }
    } else if (mode == 50) {  // float into L1 unconverted
        LocalTensor<float> d = l1.Alloc<float>(m16 * n16);
        Fixpipe<float, float, CFG_NZ>(d, cf, p);
    } else if ((mode >= 51 && mode <= 53) || mode == 55 || mode == 56) {
        LocalTensor<int8_t> d = l1.Alloc<int8_t>(b8_bytes);
        p.quantPre = QuantMode_t::VQF322B8_PRE;
        if (mode == 51) {  // the quant tensor in UB
            LocalMemAllocator<Hardware::UB> ub;
            LocalTensor<uint64_t> qu = ub.Alloc<uint64_t>(n16);
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, qu, p);
        } else if (mode == 52) {  // a tensor mode without its tensor
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, p);
        } else if (mode == 53) {  // ND into L1
            p.quantPre = QuantMode_t::QF322B8_PRE;
            Fixpipe<int8_t, float, CFG_ROW_MAJOR>(d, cf, p);
        } else if (mode == 55) {  // a scalar mode with a quant tensor
            p.quantPre = QuantMode_t::QF322B8_PRE;
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, qt, p);
        } else {  // a quant tensor shorter than nSize
            Fixpipe<int8_t, float, CFG_NZ>(d, cf, qt[n16 - 8], p);
        }
    } else if (mode == 54) {  // isChannelSplit with ND output
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, m * n);
        p.dstStride = n;
        p.isChannelSplit = true;
        Fixpipe<float, float, CFG_ROW_MAJOR>(o, cf, p);
    } else if (mode >= 70 && mode <= 74) {  // the first interface, FixpipeParams<T>, in bursts
        FixpipeParams<float> q;
        q.cburstNum = (u16)(n16 / 16);
        q.burstLen = (u16)(m * 16 * sizeof(float) / 32);
        q.srcStride = 0;
        if (mode == 70 || mode == 74) {  // NZ2ND, rows n + 8 apart: F322F16, or VQF322B8_PRE
            q.dstStride = n + 8;
            q.nz2ndParams.nz2ndEn = true;
            q.nz2ndParams.originalNSize = (u16)n;
            if (mode == 70) {
                GlobalTensor<half> o = FilledGm<half>(out, m * (n + 8));
                q.quantParams = {QuantMode_t::F322F16};
                Fixpipe(o, cf, q);
            } else {
                GlobalTensor<int8_t> o = FilledGm<int8_t>(out, m * (n + 8));
                q.quantParams = {QuantMode_t::VQF322B8_PRE};
                Fixpipe(o, cf, qt, q);
            }
        } else if (mode == 71) {  // NZ, NoQuant, a gap of 3 x 32 bytes after each burst
            GlobalTensor<float> o = FilledGm<float>(out, n16 / 16 * (24 + m * 16));
            q.dstStride = 3;
            Fixpipe(o, cf, q);
        } else if (mode == 72) {  // NZ2ND into L1
            LocalTensor<half> d = l1.Alloc<half>(m16 * n16);
            q.quantParams = {QuantMode_t::F322F16};
            q.nz2ndParams.nz2ndEn = true;
            q.nz2ndParams.originalNSize = (u16)n;
            Fixpipe(d, cf, q);
        } else {  // NZ2ND without originalNSize
            GlobalTensor<half> o = FilledGm<half>(out, m * n);
            q.quantParams = {QuantMode_t::F322F16};
            q.nz2ndParams.nz2ndEn = true;
            Fixpipe(o, cf, q);
        }
    }
}

// C = A (m x k, half, ND) x B (k x n, half, ND), through L1, L0A/L0B and L0C, out by Fixpipe.
__aicore__ inline void Matmul(GM_ADDR a, GM_ADDR b, GM_ADDR out, const CubeTiling& t)
{
    const uint32_t m = t.m, k = t.k, n = t.n;
    const uint32_t m1 = (m + 15) / 16, k1 = (k + 15) / 16, n1 = (n + 15) / 16;
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc;
    pipe.InitBuffer(qa1, 1, m1 * k1 * 512);
    pipe.InitBuffer(qb1, 1, k1 * n1 * 512);
    pipe.InitBuffer(ba2, m1 * k1 * 512);
    pipe.InitBuffer(bb2, k1 * n1 * 512);
    pipe.InitBuffer(bc, m1 * n1 * 1024);
    GlobalTensor<half> aGm, bGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, m * k);
    bGm.SetGlobalBuffer((__gm__ half*)b, k * n);
    LocalTensor<half> a1 = qa1.AllocTensor<half>();
    LocalTensor<half> b1 = qb1.AllocTensor<half>();
    DataCopy(a1, aGm, Nd2NzParams{1, (u16)m, (u16)k, 0, (u16)k, (u16)(m1 * 16), 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, (u16)k, (u16)n, 0, (u16)n, (u16)(k1 * 16), 1, 0});
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LocalTensor<half> a2 = ba2.Get<half>();
    LocalTensor<half> b2 = bb2.Get<half>();
    const LoadData2DParams la{0, (u8)k1, (u16)m1, 0, 0, false, 0};
    const LoadData2DParams lb{0, (u8)n1, (u16)k1, 0, 0, true, 0};
    for (uint32_t i = 0; i < m1; ++i) LoadData(a2[i * k1 * 256], a1[i * 256], la);
    for (uint32_t i = 0; i < k1; ++i) LoadData(b2[i * n1 * 256], b1[i * 256], lb);
    qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    LocalTensor<float> c = bc.Get<float>();
    Mmad(c, a2, b2, MmadParams{(uint16_t)m, (uint16_t)n, (uint16_t)k, 0, false, true});
    if (t.mode == 4) {  // accumulate a second product onto L0C
        Mmad(c, a2, b2, MmadParams{(uint16_t)m, (uint16_t)n, (uint16_t)k, 0, false, false});
    }
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    if (t.mode == 5) {  // NZ -> NZ, float
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, m1 * n1 * 256);
        const FixpipeParamsV220 p{(u16)(n1 * 16), (u16)(m1 * 16), (u16)(m1 * 16), m1 * 16 * 64 / 32,
                                  false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0};
        Fixpipe<float, float, CFG_NZ>(o, c, p);
    } else if (t.quant == 1) {
        GlobalTensor<half> o;
        o.SetGlobalBuffer((__gm__ half*)out, m * n);
        Fixpipe(o, c, FixpipeParamsV220{(uint16_t)n, (uint16_t)m, (uint16_t)(m1 * 16), n, false,
                                        QuantMode_t::F322F16, 0, 1, 0, 0, 0});
    } else {
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, m * n);
        Fixpipe(o, c, FixpipeParamsV220{(uint16_t)n, (uint16_t)m, (uint16_t)(m1 * 16), n, false,
                                        QuantMode_t::NoQuant, 0, 1, 0, 0, 0});
    }
    PipeBarrier<PIPE_ALL>();
}

extern "C" __global__ __aicore__ void cube_k(GM_ADDR a, GM_ADDR b, GM_ADDR out, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    GlobalTensor<half> aGm;
    aGm.SetGlobalBuffer((__gm__ half*)a);
    if (mode == 0) {  // ND -> NZ into L1, dumped raw
        LocalMemAllocator<Hardware::L1> l1;
        const uint32_t m16 = (t.m + 15) / 16 * 16, kb = (t.k + 15) / 16;
        LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(kb * m16 * 16);
        FillL(a1, kb * m16 * 16, -1.0f);
        DataCopy(a1, aGm, Nd2NzParams{1, (u16)t.m, (u16)t.k, 0, (u16)t.k, (u16)m16, 1, 0});
        Dump(out, a1, kb * m16 * 16);
    } else if (mode == 1 || mode == 2) {  // LoadData of fractals 1, 3, 5 (gap 1), maybe transposed
        LocalMemAllocator<Hardware::L1> l1;
        LocalTensor<half> a1 = l1.Alloc<half>(8 * 256);
        DataCopy(a1, aGm, 8 * 256);
        LocalTensor<half> l0;
        if (mode == 1) {
            LocalMemAllocator<Hardware::L0A> l0a;
            l0 = l0a.Alloc<half>(6 * 256);
        } else {
            LocalMemAllocator<Hardware::L0B> l0b;
            l0 = l0b.Alloc<half>(6 * 256);
        }
        FillL(l0, 6 * 256, -1.0f);
        LoadData(l0, a1, LoadData2DParams{1, 3, 2, 0, 1, mode == 2, 0});
        Dump(out, l0, 6 * 256);
    } else if (mode >= 3 && mode <= 5) {
        Matmul(a, b, out, t);
    } else if (mode == 10) {  // LoadData into a UB tensor
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::UB> ub;
        LocalTensor<half> a1 = l1.Alloc<half>(256);
        LocalTensor<half> u = ub.Alloc<half>(256);
        LoadData(u, a1, LoadData2DParams{0, 1, 0, 0, 0, false, 0});
    } else if (mode == 11) {  // more than L0A holds
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalTensor<half> big = l0a.Alloc<half>(40000);
    } else if (mode == 12) {  // k past what fm holds
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<half> fa = l0a.Alloc<half>(256);
        LocalTensor<half> fb = l0b.Alloc<half>(512);
        LocalTensor<float> fc = l0c.Alloc<float>(256);
        Mmad(fc, fa, fb, MmadParams{16, 16, 32, 0, false, true});
    } else if (mode == 13) {  // an L0A address off the 512-byte fractal grid
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalTensor<half> a1 = l1.Alloc<half>(256);
        LocalTensor<half> a2 = l0a.Alloc<half>(512);
        LoadData(a2[16], a1, LoadData2DParams{0, 1, 0, 0, 0, false, 0});
    } else if (mode == 14) {  // half output without F322F16
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<float> fc = l0c.Alloc<float>(256);
        GlobalTensor<half> o;
        o.SetGlobalBuffer((__gm__ half*)out, 256);
        Fixpipe(o, fc, FixpipeParamsV220{16, 16, 16, 16, false, NoQuant, 0, 1, 0, 0, 0});
    } else if (mode == 15) {  // queues past L0C
        TPipe pipe;
        TQue<TPosition::CO1, 1> q;
        pipe.InitBuffer(q, 2, 96 * 1024);
    } else if (mode == 16) {  // fm in L0B
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<half> fb = l0b.Alloc<half>(512);
        LocalTensor<float> fc = l0c.Alloc<float>(256);
        Mmad(fc, fb, fb[256], MmadParams{16, 16, 16, 0, false, true});
    } else if (mode == 17) {  // ND -> NZ past its L1 tensor
        LocalTensor<half> a1(TPosition::A1, 0, 256);
        DataCopy(a1, aGm, Nd2NzParams{1, 32, 16, 0, 16, 32, 1, 0});
    } else if (mode >= 20 && mode <= 22) {  // LoadDataWithTranspose of b16 (20), b8 (21), b32 (22)
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalTensor<u8> s = l1.Alloc<u8>(4096);
        GlobalTensor<u8> g;
        g.SetGlobalBuffer((__gm__ u8*)a, 4096);
        DataCopy(s, g, 4096);
        LocalTensor<u8> d = l0b.Alloc<u8>(8 * 512);
        FillL(d, 8 * 512, 0xEE);
        // start 1, 2 repeats, stride 1, dstGap t.m, dstFracGap t.n
        const LoadData2dTransposeParams p{1, 2, 1, (u16)t.m, (u16)t.n};
        if (mode == 20) {
            LoadDataWithTranspose(d.ReinterpretCast<half>(), s.ReinterpretCast<half>(), p);
        } else if (mode == 21) {
            LoadDataWithTranspose(d.ReinterpretCast<int8_t>(), s.ReinterpretCast<int8_t>(), p);
        } else {
            LoadDataWithTranspose(d.ReinterpretCast<float>(), s.ReinterpretCast<float>(), p);
        }
        Dump(out, d, 8 * 512);
    } else if (mode >= 23 && mode <= 25) {  // LoadData 3D v2 of a 3 x 5 x 32-channel half map
        LocalMemAllocator<Hardware::L1> l1;
        LocalTensor<half> s = l1.Alloc<half>(2 * 3 * 5 * 16);
        DataCopy(s, aGm, 2 * 3 * 5 * 16);
        LoadData3DParamsV2<half> p;
        p.padList[0] = 1;  // left
        p.padList[2] = 1;  // top
        p.l1H = 3;
        p.l1W = 5;
        p.channelSize = 32;
        p.filterW = 2;
        p.filterH = 2;
        p.strideW = 2;
        p.kStartPt = 16;
        p.kExtension = 80;  // columns 16..95 of 2 x 2 x 2 x 16 = 128
        p.mStartPt = 1;
        p.mExtension = 7;  // rows 1..7 of Hout 3 x Wout 3 = 9
        p.padValue = static_cast<half>(-3.0f);
        p.enTranspose = mode == 24;
        LocalTensor<half> d;
        if (mode == 25) {
            LocalMemAllocator<Hardware::L0B> l0b;
            d = l0b.Alloc<half>(8 * 256);
        } else {
            LocalMemAllocator<Hardware::L0A> l0a;
            d = l0a.Alloc<half>(8 * 256);
        }
        FillL(d, 8 * 256, 7.0f);
        LoadData(d, s, p);
        Dump(out, d, 8 * 256);
    } else if (mode == 26 || mode == 27) {  // Mmad with a bias tensor (26), with cmatrixSource (27)
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalMemAllocator<Hardware::BIAS> bt;
        GlobalTensor<half> bGm;
        bGm.SetGlobalBuffer((__gm__ half*)b, 16 * 32 + 32);
        LocalTensor<half> a1 = l1.Alloc<half>(512);
        LocalTensor<half> b1 = l1.Alloc<half>(512);
        LocalTensor<float> c1 = l1.Alloc<float>(32);
        DataCopy(a1, aGm, Nd2NzParams{1, 16, 32, 0, 32, 16, 1, 0});  // A 16 x 32
        DataCopy(b1, bGm, Nd2NzParams{1, 32, 16, 0, 16, 32, 1, 0});  // B 32 x 16
        GlobalTensor<float> biasGm;
        biasGm.SetGlobalBuffer((__gm__ float*)(b + 32 * 16 * sizeof(half)), 16);
        DataCopy(c1, biasGm, 16);
        LocalTensor<float> c2 = bt.Alloc<float>(16);
        DataCopy(c2, c1, DataCopyParams{1, 1, 0, 0});  // one 64-byte unit: 16 floats
        LocalTensor<half> a2 = l0a.Alloc<half>(512);
        LocalTensor<half> b2 = l0b.Alloc<half>(512);
        LoadData(a2, a1, LoadData2DParams{0, 2, 1, 0, 0, false, 0});
        LoadData(b2, b1, LoadData2DParams{0, 2, 1, 0, 0, true, 0});
        LocalTensor<float> c = l0c.Alloc<float>(256);
        MmadParams mp{16, 16, 32, 0, mode == 27, false};
        if (mode == 26) {
            Mmad(c, a2, b2, c2, mp);
        } else {
            Mmad(c, a2, b2, mp);
        }
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 256);
        Fixpipe(o, c, FixpipeParamsV220{16, 16, 16, 16, false, NoQuant, 0, 1, 0, 0, 0});
    } else if (mode == 28 || mode == 29) {  // unitFlag: no Mmad 3 before a Fixpipe; two Mmad 3
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<half> a2 = l0a.Alloc<half>(256);
        LocalTensor<half> b2 = l0b.Alloc<half>(256);
        LocalTensor<float> c = l0c.Alloc<float>(256);
        FillL(a2, 256, 0.5f);
        FillL(b2, 256, 0.25f);
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 256);
        const FixpipeParamsV220 fp{16, 16, 16, 16, false, NoQuant, 0, 1, 0, 0, 3};
        Mmad(c, a2, b2, MmadParams{16, 16, 16, 2, false, true});  // flags kept at 0
        if (mode == 29) Mmad(c, a2, b2, MmadParams{16, 16, 16, 3, false, false});
        if (mode == 29) Mmad(c, a2, b2, MmadParams{16, 16, 16, 3, false, false});
        Fixpipe(o, c, fp);
    } else if (mode == 30) {  // unitFlag: Mmad 2, 3; Fixpipe 3; Mmad 3; reset; Mmad 3; Fixpipe 3
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<half> a2 = l0a.Alloc<half>(256);
        LocalTensor<half> b2 = l0b.Alloc<half>(256);
        LocalTensor<float> c = l0c.Alloc<float>(256);
        FillL(a2, 256, 0.5f);
        FillL(b2, 256, 0.25f);
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 256);
        const FixpipeParamsV220 fp{16, 16, 16, 16, false, NoQuant, 0, 1, 0, 0, 3};
        Mmad(c, a2, b2, MmadParams{16, 16, 16, 2, false, true});
        Mmad(c, a2, b2, MmadParams{16, 16, 16, 3, false, false});
        Fixpipe(o, c, fp);
        Mmad(c, a2, b2, MmadParams{16, 16, 16, 3, false, false});
        SetFixPipeConfig<float>(c, true);  // clears the flags: the next Mmad need not wait
        Mmad(c, a2, b2, MmadParams{16, 16, 16, 3, false, false});
        Fixpipe(o, c, fp);
    } else if (mode == 31) {  // LoadDataWithTranspose into a UB tensor
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::UB> ub;
        LocalTensor<half> s = l1.Alloc<half>(256);
        LocalTensor<half> u = ub.Alloc<half>(256);
        LoadDataWithTranspose(u, s, LoadData2dTransposeParams{0, 1, 0, 0, 0});
    } else if (mode == 32) {  // the 3D load of int8_t into L0B
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalTensor<int8_t> s = l1.Alloc<int8_t>(1024);
        LocalTensor<int8_t> d = l0b.Alloc<int8_t>(1024);
        LoadData3DParamsV2<int8_t> p;
        p.l1H = 1;
        p.l1W = 32;
        p.channelSize = 32;
        p.kExtension = 32;
        p.mExtension = 32;
        LoadData(d, s, p);
    } else if (mode == 33) {  // a bias row past the bias table
        LocalMemAllocator<Hardware::L0A> l0a;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalMemAllocator<Hardware::L0C> l0c;
        LocalTensor<half> a2 = l0a.Alloc<half>(256);
        LocalTensor<half> b2 = l0b.Alloc<half>(320 * 16);
        LocalTensor<float> c = l0c.Alloc<float>(320 * 16);
        Mmad(c, a2, b2, MmadParams{16, 320, 16, 0, true, false});
    } else if ((mode >= 40 && mode <= 56) || (mode >= 60 && mode <= 66) ||
               (mode >= 70 && mode <= 74)) {
        FixpipeCase(a, b, out, t);  // L1 byte 0: the quant tensor
    } else if (mode == 18) {  // transposing a b32 fractal
        LocalMemAllocator<Hardware::L1> l1;
        LocalMemAllocator<Hardware::L0B> l0b;
        LocalTensor<float> s = l1.Alloc<float>(128);
        LocalTensor<float> d = l0b.Alloc<float>(128);
        LoadData(d, s, LoadData2DParams{0, 1, 0, 0, 0, true, 0});
    } else if (mode == 19) {  // a Mmad from L0C's last 1 KiB: 32 x 16 floats reach past its end
        LocalTensor<half> fa(TPosition::A2, 0, 512);
        LocalTensor<half> fb(TPosition::B2, 0, 256);
        LocalTensor<float> fc(TPosition::CO1, 128 * 1024 - 1024, 256);
        Mmad(fc, fa, fb, MmadParams{32, 16, 16, 0, false, true});
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("cube")) / "cube.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="cube_k")


def run(lib: rt.KernelLibrary, mode: int, a: np.ndarray, b: np.ndarray, out_n: int, out_dtype: str,
        m: int = 0, k: int = 0, n: int = 0, quant: int = 0) -> np.ndarray:
    ga, gb = rt.gm_empty(max(a.size, 16), "float16"), rt.gm_empty(max(b.size, 16), "float16")
    ga[: a.size], gb[: b.size] = a.reshape(-1), b.reshape(-1)
    go = rt.gm_empty(out_n, out_dtype)
    rt.launch(lib, "cube_k", [ga, gb, go], block_dim=1,
              tiling=struct.pack("<i4I", mode, m, k, n, quant))
    return np.asarray(go).copy()


def rand_half(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float16)


def nz(x: np.ndarray) -> np.ndarray:
    """ND (rows x cols) -> NZ: blocks of 16 columns of rows (rounded up to 16) x 16, zero-padded."""
    rows, cols = x.shape
    r16, c16 = -(-rows // 16) * 16, -(-cols // 16) * 16
    p = np.zeros((r16, c16), x.dtype)
    p[:rows, :cols] = x
    return p.reshape(r16, c16 // 16, 16).transpose(1, 0, 2).reshape(-1)


def test_nd2nz_layout_pads_the_last_block_with_zeros(lib: rt.KernelLibrary) -> None:
    m, k = 20, 40
    a = rand_half((m, k), 1)
    got = run(lib, 0, a, a, 3 * 32 * 16, "float16", m=m, k=k)
    want = np.full((3, 32, 16), -1, np.float16)  # rows 20..31 of each block are not written
    want[:, :m, :] = nz(a).reshape(3, 32, 16)[:, :m, :]
    np.testing.assert_array_equal(got, want.reshape(-1))
    assert (want[2, :m, 8:] == 0).all()  # columns 40..47: the documented zero padding


@pytest.mark.parametrize("transpose", [False, True])
def test_load_data_2d_fractals_strides_and_transpose(lib: rt.KernelLibrary,
                                                     transpose: bool) -> None:
    src = np.arange(8 * 256).astype(np.float16)  # exact in half
    got = run(lib, 2 if transpose else 1, src, src, 6 * 256, "float16").reshape(6, 256)
    want = np.full((6, 256), -1, np.float16)
    for i in range(3):  # startIndex 1, srcStride 2, dstGap 1
        f = src.reshape(8, 256)[1 + 2 * i]
        want[2 * i] = f.reshape(16, 16).T.reshape(-1) if transpose else f
    np.testing.assert_array_equal(got, want)


def model_mmad(a: np.ndarray, b: np.ndarray, c0: np.ndarray | None = None) -> np.ndarray:
    """C (+)= A x B in float32: each block of 16 K products summed in order, then added to C."""
    m, k = a.shape
    af, bf = a.astype(np.float32), b.astype(np.float32)
    acc = np.zeros((m, b.shape[1]), np.float32) if c0 is None else c0.astype(np.float32).copy()
    for kb in range(0, k, 16):
        s = np.zeros_like(acc)
        for q in range(kb, min(kb + 16, k)):
            s = s + af[:, q, None] * bf[None, q, :]
        acc = acc + s
    return acc


@pytest.mark.parametrize("m,k,n", [(32, 32, 32), (20, 40, 24), (16, 64, 48)])
def test_matmul_f322f16_matches_the_float_accumulation(lib: rt.KernelLibrary, m: int, k: int,
                                                       n: int) -> None:
    a, b = rand_half((m, k), 2), rand_half((k, n), 3)
    got = run(lib, 3, a, b, m * n, "float16", m=m, k=k, n=n, quant=1).reshape(m, n)
    want = model_mmad(a, b)
    np.testing.assert_array_equal(got.view(np.uint16), want.astype(np.float16).view(np.uint16))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=2e-3, atol=2e-3)


def test_matmul_32_cubed_noquant_equals_numpy_float32(lib: rt.KernelLibrary) -> None:
    a, b = rand_half((32, 32), 4), rand_half((32, 32), 5)
    got = run(lib, 3, a, b, 32 * 32, "float32", m=32, k=32, n=32, quant=0).reshape(32, 32)
    np.testing.assert_array_equal(got.view(np.uint32), model_mmad(a, b).view(np.uint32))
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_mmad_accumulates_without_init(lib: rt.KernelLibrary) -> None:
    a, b = rand_half((32, 48), 6), rand_half((48, 16), 7)
    got = run(lib, 4, a, b, 32 * 16, "float32", m=32, k=48, n=16).reshape(32, 16)
    once = model_mmad(a, b)
    np.testing.assert_array_equal(got.view(np.uint32), model_mmad(a, b, once).view(np.uint32))


def test_fixpipe_nz_keeps_the_l0c_layout(lib: rt.KernelLibrary) -> None:
    a, b = rand_half((32, 16), 8), rand_half((16, 32), 9)
    got = run(lib, 5, a, b, 2 * 2 * 256, "float32", m=32, k=16, n=32)
    np.testing.assert_array_equal(got.view(np.uint32), nz(model_mmad(a, b)).view(np.uint32))


@pytest.mark.parametrize(
    "mode,error,text",
    [
        (10, rt.SimulatorError,
         "LoadData(L1->L0, LoadData2DParams): dst is a LocalTensor<half> in the Unified Buffer "
         "(TPosition::VECCALC); LoadData from L1 writes L0A (TPosition A2) or L0B"),
        (11, rt.UnifiedBufferOverflow,
         "LocalMemAllocator::Alloc: L0A overflow: Alloc of 40000 x half (80000 bytes) at offset 0 "
         "needs 80000 > 65536 bytes"),
        (19, rt.LocalMemoryOutOfBounds,
         "Mmad: dst: the call reaches 2048 bytes from byte 130048 of L0C, past the end of L0C "
         "(131072 bytes; the tensor starts at byte 130048)"),
        (13, rt.AlignmentError, "dst starts at byte 32 of L0A, which is not 512-byte aligned"),
        (14, rt.SimulatorError,
         "quantPre NoQuant with a LocalTensor<float> source and a GlobalTensor<half> destination: "
         "the A2/A3 moves these types with F322F16"),
        (15, rt.UnifiedBufferOverflow,
         "TPipe::InitBuffer: L0C overflow: InitBuffer(num=2, len=98304) needs 196608 bytes"),
        (16, rt.SimulatorError,
         "Mmad: fm is a LocalTensor<half> in L0B (TPosition::B2); Mmad's left matrix A must be "
         "in L0A (TPosition A2)"),
        (18, rt.SimulatorError,
         "ifTranspose with LocalTensor<float>: the 2D load transposes b16 fractals only"),
    ],
)
def test_cube_misuse_is_reported(lib: rt.KernelLibrary, mode: int, error: type[Exception],
                                 text: str) -> None:
    a = rand_half((64, 64), 10)
    with pytest.raises(error) as info:
        run(lib, mode, a, a, 256, "float16")
    assert text in str(info.value)
    assert "kernel 'cube_k', block 0" in str(info.value)


@pytest.mark.parametrize(
    "mode,text",
    [
        (12, "Mmad: fm: the call reaches 1024 bytes from byte 0 of L0A, past the LocalTensor<half> "
             "of 256 elements (512 bytes, strict mode)"),
        (17, "DataCopy(GM->L1, Nd2NzParams): dst: the call reaches 1024 bytes from byte 0 of L1, "
             "past the LocalTensor<half> of 256 elements (512 bytes, strict mode)"),
    ],
)
def test_cube_calls_past_their_tensor_run_and_are_errors_in_strict_mode(
        lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch, mode: int, text: str) -> None:
    """A cube instruction addresses its memory, not the LocalTensor: a call reaching past its
    tensor but not past the memory runs, as on the device (asc-devkit's mmad sample computes an
    int8 C wider than its tensor); OPGEN_SIM_STRICT=1 makes it an error."""
    a = rand_half((64, 64), 10)
    run(lib, mode, a, a, 256, "float16")
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.LocalMemoryOutOfBounds) as info:
        run(lib, mode, a, a, 256, "float16")
    assert text in str(info.value)


def run_bytes(lib: rt.KernelLibrary, mode: int, raw: np.ndarray, out_n: int, m: int = 0,
              n: int = 0) -> np.ndarray:
    """Runs `mode` with `raw` (uint8) as input a; returns out_n bytes."""
    half = raw.view(np.float16)
    got = run(lib, mode, half, half, out_n // 2, "float16", m=m, n=n)
    return got.view(np.uint8)


def model_transpose_load(src: np.ndarray, es: int, dst_gap: int, frac_gap: int) -> np.ndarray:
    """The reference's LoadDataWithTranspose: squares 1, 2 (startIndex 1, srcStride 1), each
    transposed; b16 one fractal, b8 two 16 x 32 fractals stacked (split by rows), b32 two 16 x 8
    fractals side by side (split by columns)."""
    dt = {1: np.uint8, 2: np.uint16, 4: np.uint32}[es]
    elems = 512 // es
    dst = np.full(8 * 512, 0xEE, np.uint8).view(dt).copy()
    s = src.view(dt)
    nfrac = 1 if es == 2 else 2
    for i in range(2):
        sq = s[(1 + i) * nfrac * elems:(2 + i) * nfrac * elems]
        if es == 2:
            parts = [sq.reshape(16, 16).T]
        elif es == 1:
            t = sq.reshape(32, 32).T
            parts = [t[:16], t[16:]]
        else:
            t = np.concatenate([sq[:128].reshape(16, 8), sq[128:].reshape(16, 8)], axis=1).T
            parts = [t[:, :8], t[:, 8:]]
        for j, f in enumerate(parts):
            at = (i * (dst_gap + 1) + j * (frac_gap + 1)) * elems
            dst[at:at + elems] = f.reshape(-1)
    return dst.view(np.uint8)


@pytest.mark.parametrize("mode,es", [(20, 2), (21, 1), (22, 4)])
@pytest.mark.parametrize("dst_gap,frac_gap", [(1, 0), (0, 2)])
def test_load_data_with_transpose_squares(lib: rt.KernelLibrary, mode: int, es: int, dst_gap: int,
                                          frac_gap: int) -> None:
    raw = np.random.default_rng(mode).integers(0, 256, 4096, dtype=np.uint8)
    got = run_bytes(lib, mode, raw, 8 * 512, m=dst_gap, n=frac_gap)
    np.testing.assert_array_equal(got, model_transpose_load(raw, es, dst_gap, frac_gap))


def model_load3d(fmap: np.ndarray, where: str) -> np.ndarray:
    """im2col of a C1 x H x W x C0 half map (the kernel's parameters: pad left/top 1, 2 x 2
    filter, stride W 2), rows 1..7, columns 16..95, laid out as the reference's load3d.py places
    them: L0A Zz (A), L0A transposed (AT), L0B (B)."""
    c1, h, w, c0 = fmap.shape
    padded = np.full((c1, h + 1, w + 1, c0), -3, np.float16)
    padded[:, 1:, 1:, :] = fmap
    hout, wout = (h + 1 - 2) // 1 + 1, (w + 1 - 2) // 2 + 1
    rows = []
    for oh in range(hout):
        for ow in range(wout):
            win = padded[:, oh:oh + 2, ow * 2:ow * 2 + 2, :]  # c1, kh, kw, c0
            rows.append(win.reshape(-1))
    mat = np.array(rows)[1:8, 16:96]  # 7 x 80
    dst = np.full(8 * 256, 7, np.float16)
    for i in range(7):
        for q in range(80):
            if where == "A":
                at = ((i // 16) * 5 + q // 16) * 256 + (i % 16) * 16 + q % 16
            elif where == "AT":
                at = ((q // 16) * 1 + i // 16) * 256 + (q % 16) * 16 + i % 16
            else:
                at = ((i // 16) * 5 + q // 16) * 256 + (q % 16) * 16 + i % 16
            dst[at] = mat[i, q]
    return dst


@pytest.mark.parametrize("mode,where", [(23, "A"), (24, "AT"), (25, "B")])
def test_load_data_3dv2_im2col_layouts(lib: rt.KernelLibrary, mode: int, where: str) -> None:
    fmap = np.arange(2 * 3 * 5 * 16).astype(np.float16).reshape(2, 3, 5, 16)
    got = run(lib, mode, fmap.reshape(-1), fmap.reshape(-1), 8 * 256, "float16")
    np.testing.assert_array_equal(got, model_load3d(fmap, where))


@pytest.mark.parametrize("mode", [26, 27])
def test_mmad_starts_from_the_bias_table(lib: rt.KernelLibrary, mode: int) -> None:
    a, b = rand_half((16, 32), 11), rand_half((32, 16), 12)
    bias = np.random.default_rng(13).uniform(-4, 4, 16).astype(np.float32)
    gb = np.concatenate([b.reshape(-1), bias.view(np.float16)])
    got = run(lib, mode, a, gb, 256, "float32").reshape(16, 16)
    want = model_mmad(a, b, np.broadcast_to(bias, (16, 16)))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_unit_flags_round_trip(lib: rt.KernelLibrary) -> None:
    got = run(lib, 30, np.zeros(16, np.float16), np.zeros(16, np.float16), 256, "float32")
    np.testing.assert_array_equal(got, np.full(256, 8, np.float32))


@pytest.mark.parametrize(
    "mode,error,text",
    [
        (28, rt.SimulatorError,
         "Fixpipe(L0C->GM, FixpipeParamsV220): unitFlag 3: L0C block 0 (bytes 0..511) has unit "
         "flag 0, so the read would wait for a Mmad with unitFlag 3 to write it first"),
        (29, rt.SimulatorError,
         "Mmad: unitFlag 3: L0C block 0 (bytes 0..511) has unit flag 1, so the write would wait "
         "for a Fixpipe with unitFlag 3 to read it first"),
        (31, rt.SimulatorError,
         "LoadDataWithTranspose(L1->L0, LoadData2dTransposeParams): dst is a LocalTensor<half> in "
         "the Unified Buffer"),
        (32, rt.SimulatorError,
         "LoadData(L1->L0, LoadData3DParamsV2): L1 -> L0B does not take b8 data on the Atlas "
         "A2/A3"),
        (33, rt.LocalMemoryOutOfBounds,
         "Mmad: cmatrixSource: the bias row of n = 320 x float (1280 bytes) is more than the bias "
         "table's 1024 bytes"),
    ],
)
def test_cube_more_misuse_is_reported(lib: rt.KernelLibrary, mode: int, error: type[Exception],
                                      text: str) -> None:
    a = rand_half((64, 64), 10)
    with pytest.raises(error) as info:
        run(lib, mode, a, a, 256, "float16")
    assert text in str(info.value)


# ---- Fixpipe's quantisation modes, L0C -> L1, Int8 Channel Merge, F32 Channel Split ----------

def quant_word(scale: float, offset: int = 0, sign: bool = True, n: int = 0,
               mcb: bool = False) -> int:
    """A QUANT_PRE word: the float's bits (low 32), N (35..32), MCB (36), Offset (45..37),
    Sign (46), as the reference's table lays them out."""
    bits = int(np.array(scale, np.float32).view(np.uint32))
    return bits | (n << 32) | (int(mcb) << 36) | (offset << 37) | (int(sign) << 46)


def word_fields(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                        np.ndarray]:
    """M1 (bits 31..13 as a float: the 1-8-10 float), shift (N + 1), MCB, Offset, Sign."""
    w = w.astype(np.uint64)
    m1 = (w & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32)
    shift = ((w >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
    mcb = ((w >> np.uint64(36)) & np.uint64(1)).astype(bool)
    offset = ((w >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    sign = ((w >> np.uint64(46)) & np.uint64(1)).astype(bool)
    return m1, shift, mcb, offset, sign


def model_scale(x: np.ndarray, m1: np.ndarray, relu: bool) -> np.ndarray:
    """x (float32) times M1 where x >= 0, else times M2 (M1, or 0 with reluEn), in float32."""
    m2 = np.zeros_like(m1) if relu else m1
    out: np.ndarray = np.where(x >= 0, x * m1, x * m2).astype(np.float32)
    return out


def model_b8(x: np.ndarray, words: np.ndarray, relu: bool) -> np.ndarray:
    """(V)QF322B8_PRE / (V)REQ8 after the float: saturate to [-256, 255], round half to even,
    add Offset, saturate to int8 (Sign 1) or uint8 (Sign 0); the bytes."""
    m1, _, _, offset, sign = word_fields(words)
    y = np.nan_to_num(model_scale(x, m1, relu), nan=0.0)
    r = np.rint(np.clip(y, -256, 255)).astype(np.int64) + offset
    r = np.where(sign, np.clip(r, -128, 127), np.clip(r, 0, 255))
    out: np.ndarray = (r & 0xFF).astype(np.uint8)
    return out


def nz_b8(res: np.ndarray, dst_stride: int, total: int) -> np.ndarray:
    """Int8 Channel Merge: blocks 2p, 2p + 1 of 16 columns form a 16 x 32 fractal at
    p * dstStride * 32 bytes, row j at j * 32; an odd last block stays 16 wide (rows 16 apart)."""
    m, n = res.shape
    nb = -(-n // 16)
    out = np.full(total, 85, np.uint8)
    for c in range(n):
        k = c // 16
        base = (k // 2) * dst_stride * 32
        for j in range(m):
            if nb % 2 == 1 and k == nb - 1:
                out[base + j * 16 + c % 16] = res[j, c]
            else:
                out[base + j * 32 + (k % 2) * 16 + c % 16] = res[j, c]
    return out


def run_fixpipe(lib: rt.KernelLibrary, mode: int, l0c: np.ndarray, words: np.ndarray,
                out_n: int, out_dtype: str, relu: bool = False) -> np.ndarray:
    """`l0c`: the m x n L0C values (float32 or int32), laid out in NZ by the test."""
    m, n = l0c.shape
    n16 = -(-n // 16) * 16
    a = nz(l0c).view(np.float16)
    b = np.zeros(n16, np.uint64)
    b[: words.size] = words
    return run(lib, mode, a, b.view(np.float16), out_n, out_dtype, m=m, n=n, quant=int(relu))


def l0c_floats(m: int, n: int, seed: int) -> np.ndarray:
    """Values that round on ties (x.5 after scaling), saturate, and are negative."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-700, 700, (m, n)).astype(np.float32) * np.float32(0.5)
    x[0, :4] = [1e30, -1e30, 0.5, -0.5]
    return x


@pytest.mark.parametrize("relu", [False, True])
def test_fixpipe_qf322b8_into_l1_nz_with_channel_merge(lib: rt.KernelLibrary,
                                                       relu: bool) -> None:
    m, n = 20, 48  # three 16-column blocks: one merged 16 x 32 fractal, one 16 x 16
    x = l0c_floats(m, n, 20)
    w = quant_word(0.7, offset=5)  # 0.7 has mantissa bits below the 10 the hardware keeps
    total = 2 * 32 * 32
    got = run_fixpipe(lib, 40, x, np.array([w], np.uint64), total, "uint8", relu)
    res = model_b8(x, np.full(n, w, np.uint64), relu)
    np.testing.assert_array_equal(got, nz_b8(res, 32, total))
    full = np.rint(np.clip(x * np.float32(0.7), -256, 255)) + 5  # the untruncated scale differs
    assert (np.clip(full, -128, 127).astype(np.int8).view(np.uint8) != res).any()


def test_fixpipe_vqf322b8_into_l1_reads_a_word_per_column(lib: rt.KernelLibrary) -> None:
    m, n = 16, 64
    x = l0c_floats(m, n, 21)
    rng = np.random.default_rng(22)
    scales = rng.uniform(0.05, 1.5, n)
    scales[:8] = [1.0, 0.5, 1.0, 0.5, 0.25, 1.0, 1.0, 0.5]  # x.5 products: ties to even
    words = np.array([quant_word(float(scales[c]), offset=int(rng.integers(0, 40)),
                                 sign=bool(rng.integers(0, 2))) for c in range(n)], np.uint64)
    total = 2 * 16 * 32
    got = run_fixpipe(lib, 41, x, words, total, "uint8")
    np.testing.assert_array_equal(got, nz_b8(model_b8(x, words, False), 16, total))
    y = x[:, :8] * scales[:8].astype(np.float32)
    assert (np.abs(y - np.trunc(y)) == 0.5).sum() > 20  # rounding half away would differ


def test_fixpipe_reads_its_quant_tensor_before_writing_over_it(lib: rt.KernelLibrary) -> None:
    m, n = 32, 32  # the result (2 KiB) covers the 256 bytes of quant words at L1 byte 0
    x = l0c_floats(m, n, 29)
    words = np.array([quant_word(0.25 + c / 16, offset=c) for c in range(n)], np.uint64)
    got = run_fixpipe(lib, 48, x, words, 32 * 32, "uint8")
    np.testing.assert_array_equal(got, nz_b8(model_b8(x, words, False), 32, 32 * 32))


def test_fixpipe_f322f16_relu_into_l1(lib: rt.KernelLibrary) -> None:
    m, n = 24, 32
    x = np.random.default_rng(23).uniform(-9, 9, (m, n)).astype(np.float32)
    got = run_fixpipe(lib, 42, x, np.zeros(1, np.uint64), 32 * 32, "float16", relu=True)
    want = nz(np.maximum(x, 0).astype(np.float16)).reshape(2, 32, 16)
    want[:, m:, :] = -7  # rows past mSize are not written
    np.testing.assert_array_equal(got.view(np.uint16), want.reshape(-1).view(np.uint16))


def test_fixpipe_vqf322b8_to_gm_nd(lib: rt.KernelLibrary) -> None:
    m, n = 18, 40
    x = l0c_floats(m, n, 24)
    rng = np.random.default_rng(25)
    words = np.array([quant_word(float(rng.uniform(0.1, 2.0)), offset=int(rng.integers(0, 9)))
                      for _ in range(n)], np.uint64)
    got = run_fixpipe(lib, 43, x, words, m * (n + 8), "uint8").reshape(m, n + 8)
    np.testing.assert_array_equal(got[:, :n], model_b8(x, words, False))
    assert (got[:, n:] == 85).all()  # the 8 bytes between rows are not written


def test_fixpipe_in_bursts_nz2nd_f322f16_to_gm(lib: rt.KernelLibrary) -> None:
    """The first interface, FixpipeParams<float> (ops-math's add_lora): bursts of 16 columns,
    burstLen in 32 bytes of the source, NZ2ND with a row stride and originalNSize columns."""
    m, n = 18, 40
    x = np.random.default_rng(26).uniform(-9, 9, (m, n)).astype(np.float32)
    got = run_fixpipe(lib, 70, x, np.zeros(1, np.uint64), m * (n + 8), "float16").reshape(m, n + 8)
    np.testing.assert_array_equal(got[:, :n].view(np.uint16), x.astype(np.float16).view(np.uint16))
    assert (got[:, n:] == 85).all()  # between the rows: not written


def test_fixpipe_in_bursts_with_the_quant_tensor_matches_fixpipe_v220(lib: rt.KernelLibrary
                                                                     ) -> None:
    m, n = 18, 40
    x = l0c_floats(m, n, 24)
    rng = np.random.default_rng(25)
    words = np.array([quant_word(float(rng.uniform(0.1, 2.0)), offset=int(rng.integers(0, 9)))
                      for _ in range(n)], np.uint64)
    got = run_fixpipe(lib, 74, x, words, m * (n + 8), "uint8")
    np.testing.assert_array_equal(got, run_fixpipe(lib, 43, x, words, m * (n + 8), "uint8"))
    np.testing.assert_array_equal(got.reshape(m, n + 8)[:, :n], model_b8(x, words, False))


def test_fixpipe_in_bursts_nz_leaves_the_gap_between_bursts(lib: rt.KernelLibrary) -> None:
    m, n = 18, 40  # 3 bursts of 18 rows x 16 floats, each followed by 3 x 32 untouched bytes
    x = np.random.default_rng(27).uniform(-9, 9, (m, n)).astype(np.float32)
    burst = 24 + m * 16
    got = run_fixpipe(lib, 71, x, np.zeros(1, np.uint64), 3 * burst, "float32").reshape(3, burst)
    padded = np.zeros((m, 48), np.float32)
    padded[:, :n] = x
    want = padded.reshape(m, 3, 16).transpose(1, 0, 2).reshape(3, m * 16)
    np.testing.assert_array_equal(got[:, : m * 16].view(np.uint32), want.view(np.uint32))
    assert (got[:, m * 16:] == 85).all()


@pytest.mark.parametrize("mode,text", [
    (72, "Fixpipe(L0C->L1, FixpipeParams): nz2ndParams.nz2ndEn into L1: the A2/A3 writes L1 in "
         "NZ only"),
    (73, "Fixpipe(L0C->GM, FixpipeParams): nz2ndParams.originalNSize = 0 with nz2ndEn"),
])
def test_fixpipe_in_bursts_misuse_is_reported(lib: rt.KernelLibrary, mode: int, text: str) -> None:
    with pytest.raises(rt.SimulatorError) as info:
        run_fixpipe(lib, mode, np.ones((16, 32), np.float32), np.zeros(1, np.uint64), 2048, "uint8")
    assert text in str(info.value)


def test_fixpipe_channel_split_writes_16x8_fractals(lib: rt.KernelLibrary) -> None:
    m, n = 16, 24  # nSize a multiple of 8, not of 16
    x = np.random.default_rng(26).uniform(-4, 4, (m, n)).astype(np.float32)
    got = run_fixpipe(lib, 44, x, np.zeros(1, np.uint64), n * m, "float32")
    want = x.reshape(m, n // 8, 8).transpose(1, 0, 2).reshape(-1)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_fixpipe_req8_and_vreq8_from_int32(lib: rt.KernelLibrary) -> None:
    m, n = 16, 32
    x = np.random.default_rng(27).integers(-3000, 3000, (m, n)).astype(np.int32)
    w = quant_word(0.09, offset=3)
    got = run_fixpipe(lib, 45, x, np.array([w], np.uint64), m * n, "uint8", relu=True)
    want = model_b8(x.astype(np.float32), np.full(n, w, np.uint64), True)
    np.testing.assert_array_equal(got.reshape(m, n), want)
    # VREQ8 into L1 with MCB: shifted right by N + 1 (N = 2) and saturated to int16 first
    x2 = x * 40
    words = np.array([quant_word(0.5 + c / 64, sign=c % 2 == 0, n=2, mcb=True)
                      for c in range(n)], np.uint64)
    got2 = run_fixpipe(lib, 47, x2, words, 16 * 32, "uint8")
    shifted = np.clip(x2 >> 3, -32768, 32767).astype(np.float32)
    np.testing.assert_array_equal(got2, nz_b8(model_b8(shifted, words, False), 16, 16 * 32))


@pytest.mark.parametrize(
    "mode,twin,dtype,out_n,relu",
    [(60, 43, "float32", 18 * 48, False), (60, 43, "float32", 18 * 48, True),
     (61, 45, "int32", 18 * 40, True), (62, 46, "int32", 18 * 40 * 2, False),
     (63, 47, "int32", 512, False), (66, 43, "float32", 18 * 48, False)],
)
def test_datacopy_from_l0c_with_the_fixpipe_registers_moves_as_fixpipe(
        lib: rt.KernelLibrary, mode: int, twin: int, dtype: str, out_n: int, relu: bool) -> None:
    """DataCopy(CO1 -> GM or L1, DataCopyCO12DstParams) runs the fixpipe's move with the quant
    word of SetFixpipePreQuantFlag, the table SetFixPipeConfig names in the fixpipe buffer (copied
    there from L1) and the NZ2ND parameters of SetFixpipeNz2ndFlag: the bytes of the Fixpipe form
    (its twin mode), which the tests above check against the model."""
    m, n = (16, 32) if mode == 63 else (18, 40)  # NZ output: n a multiple of 16
    rng = np.random.default_rng(mode)
    x = (l0c_floats(m, n, 24) if dtype == "float32"
         else rng.integers(-3000, 3000, (m, n)).astype(np.int32))
    words = np.array([quant_word(float(rng.uniform(0.01, 2.0)), offset=int(rng.integers(0, 9)),
                                 sign=bool(c % 2)) for c in range(n)], np.uint64)
    got = run_fixpipe(lib, mode, x, words, out_n, "uint8", relu=relu)
    # mode 66 copies the table's first 128 bytes three times (srcGap 0): words 16-47 are 0-15's
    twin_words = np.tile(words[:16], 3)[:n] if mode == 66 else words
    want = run_fixpipe(lib, twin, x, twin_words, out_n, "uint8", relu=relu)
    np.testing.assert_array_equal(got, want)
    assert not (got == 85).all()


@pytest.mark.parametrize(
    "mode,error,text",
    [(64, rt.SimulatorError,
      "DataCopy(CO1->GM, DataCopyCO12DstParams): quantPre VQF322B8_PRE reads the quant table of "
      "the fixpipe buffer: copy it there from L1 (DataCopy into a TPosition::C2PIPE2GM tensor) "
      "and name it with SetFixPipeConfig first"),
     (65, rt.AlignmentError,
      "SetFixPipeConfig(pre, isUnitFlag): the quant table starts at byte 64 of the fixpipe "
      "buffer, which is not 128-byte aligned")],
)
def test_datacopy_from_l0c_misuse_is_reported(lib: rt.KernelLibrary, mode: int,
                                              error: type[Exception], text: str) -> None:
    with pytest.raises(error) as info:
        run_fixpipe(lib, mode, np.ones((18, 40), np.float32), np.zeros(1, np.uint64), 18 * 48,
                    "uint8")
    assert text in str(info.value)


def test_fixpipe_deqf16_from_int32(lib: rt.KernelLibrary) -> None:
    m, n = 16, 16
    x = np.random.default_rng(28).integers(-2**24, 2**24, (m, n)).astype(np.int32)
    x[0, 0] = 2**31 - 1  # saturates to 65504
    w = quant_word(1 / 1000)
    got = run_fixpipe(lib, 46, x, np.array([w], np.uint64), m * n, "float16")
    m1 = word_fields(np.array([w], np.uint64))[0]
    y = np.clip(model_scale(x.astype(np.float32), m1, False), -65504, 65504)
    np.testing.assert_array_equal(got.view(np.uint16), y.astype(np.float16).reshape(-1)
                                  .view(np.uint16))
    assert got[0] == np.float16(65504)


@pytest.mark.parametrize(
    "mode,error,text",
    [
        (50, rt.SimulatorError,
         "Fixpipe(L0C->L1, FixpipeParamsV220): Fixpipe into L1 with a LocalTensor<float> source "
         "and a LocalTensor<float> destination: the A2/A3 does not move float or int32_t results "
         "into L1 unconverted"),
        (51, rt.SimulatorError,
         "the quant tensor (cbufWorkspace) is a LocalTensor<uint64_t> in the Unified Buffer"),
        (52, rt.SimulatorError,
         "quantPre VQF322B8_PRE with a LocalTensor<float> source and a LocalTensor<int8_t> "
         "destination: the A2/A3 moves these types with QF322B8_PRE, or VQF322B8_PRE with a "
         "quant tensor (cbufWorkspace)"),
        (53, rt.SimulatorError, "CFG_ROW_MAJOR (NZ2ND) into L1: the A2/A3 writes L1 in NZ only"),
        (54, rt.SimulatorError,
         "isChannelSplit: the A2/A3 splits channels only from float to float NZ in GM"),
        (55, rt.SimulatorError,
         "quantPre QF322B8_PRE with a LocalTensor<float> source and a LocalTensor<int8_t> "
         "destination: the form with a quant tensor (cbufWorkspace) runs the tensor "
         "quantisation mode VQF322B8_PRE"),
    ],
)
def test_fixpipe_quant_misuse_is_reported(lib: rt.KernelLibrary, mode: int,
                                          error: type[Exception], text: str) -> None:
    x = np.ones((16, 32), np.float32)
    with pytest.raises(error) as info:
        run_fixpipe(lib, mode, x, np.zeros(1, np.uint64), 2048, "uint8")
    assert text in str(info.value)


def test_fixpipe_quant_tensor_shorter_than_nsize_is_an_error_in_strict_mode(
        lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixpipe reads nSize words from the quant tensor's L1 address, past a shorter tensor as
    the device does; OPGEN_SIM_STRICT=1 holds it to the tensor."""
    x = np.ones((16, 32), np.float32)
    run_fixpipe(lib, 56, x, np.zeros(1, np.uint64), 2048, "uint8")
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.LocalMemoryOutOfBounds) as info:
        run_fixpipe(lib, 56, x, np.zeros(1, np.uint64), 2048, "uint8")
    text = str(info.value)
    assert "the quant tensor (cbufWorkspace): the call reaches 256 bytes from byte " in text
    assert "past the LocalTensor<uint64_t> of 8 elements (64 bytes, strict mode)" in text
