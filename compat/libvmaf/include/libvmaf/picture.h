/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VQE's libvmaf compatibility layer: pictures.
 *
 * Same names, signatures, enum values and struct layout as libvmaf 3.x's
 * <libvmaf/picture.h> (written for VQE from libvmaf's documentation; see
 * libvmaf.h for the whole layer).
 */
#ifndef VQE_COMPAT_LIBVMAF_PICTURE_H
#define VQE_COMPAT_LIBVMAF_PICTURE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Planar Y'CbCr layouts. */
enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN = 0,
    VMAF_PIX_FMT_YUV420P = 1, /**< chroma halved horizontally and vertically */
    VMAF_PIX_FMT_YUV422P = 2, /**< chroma halved horizontally */
    VMAF_PIX_FMT_YUV444P = 3, /**< chroma at full size */
    VMAF_PIX_FMT_YUV400P = 4, /**< luma only */
};

/** Opaque reference count of a picture's buffer. */
typedef struct VmafRef VmafRef;

/**
 * One picture: up to three planes (Y, Cb, Cr).
 *
 * Samples are uint8_t when `bpc` is 8 and native-endian uint16_t (values
 * below 2^bpc) for 9 to 16 bits. Plane p holds w[p] x h[p] samples, rows
 * `stride[p]` bytes apart. `ref` and `priv` belong to the library.
 */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;        /**< bits per sample, 8..16 */
    unsigned w[3], h[3]; /**< plane sizes in samples */
    ptrdiff_t stride[3]; /**< bytes from one row to the next, per plane */
    void *data[3];       /**< plane origins (NULL for absent planes) */
    VmafRef *ref;
    void *priv;
} VmafPicture;

/**
 * Allocates zeroed planes for a `w` x `h` picture into `*pic` (its previous
 * contents are overwritten, not freed) with a reference count of one.
 *
 * Chroma planes are ceil(w/2) wide for 4:2:0 and 4:2:2 and ceil(h/2) high for
 * 4:2:0, as the planes of Y4M files and FFmpeg frames are. (libvmaf 3.2.0
 * rounds down, which drops the last chroma column or row of odd-sized
 * pictures; VQE does not.) Rows are 64-byte aligned; 4:0:0 pictures have
 * data[1] = data[2] = NULL and zero chroma sizes.
 *
 * @return 0; -EINVAL for a NULL `pic`, VMAF_PIX_FMT_UNKNOWN or an unknown
 *         format, `bpc` outside 8..16, or a zero size; -ENOMEM.
 */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/**
 * Drops one reference to `*pic`'s buffer, freeing it with the last one, and
 * zeroes `*pic`. A picture handed to vmaf_read_pictures() successfully has
 * already been released by the library.
 *
 * @return 0, or -EINVAL for a NULL or already released (zeroed) picture.
 */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* VQE_COMPAT_LIBVMAF_PICTURE_H */
