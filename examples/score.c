/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scores a distorted Y4M video against its reference through VQE's C API,
 * the way an application that decodes its own frames would: it reads the
 * frames itself and pushes them with vqe_job_submit().
 *
 *   score REFERENCE.y4m DISTORTED.y4m OUTPUT.json [MODEL_SPEC | +FEATURE[=OPTS]] ...
 *
 * With no model or feature given it scores VMAF v0.6.1 (as vqe and libvmaf's
 * vmaf do). Output: libvmaf's JSON log at full precision.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vqe/vqe_c.h>

/* A minimal Y4M reader: 8-16 bit 4:0:0 / 4:2:0 / 4:2:2 / 4:4:4, progressive. */
typedef struct Y4m {
  FILE *f;
  int width, height, bit_depth;
  VqeChroma chroma;
  size_t plane_bytes[3];
  unsigned char *planes[3];
} Y4m;

static int y4m_open(Y4m *y, const char *path) {
  char line[4096];
  const char *tag;
  memset(y, 0, sizeof *y);
  y->f = fopen(path, "rb");
  if (!y->f || !fgets(line, sizeof line, y->f) || strncmp(line, "YUV4MPEG2 ", 10) != 0) {
    fprintf(stderr, "%s: not a Y4M file\n", path);
    return -1;
  }
  y->bit_depth = 8;
  y->chroma = VQE_CHROMA_420;
  for (tag = strtok(line + 10, " \n"); tag; tag = strtok(NULL, " \n")) {
    if (tag[0] == 'W') y->width = atoi(tag + 1);
    if (tag[0] == 'H') y->height = atoi(tag + 1);
    if (tag[0] == 'C') {
      if (strncmp(tag + 1, "mono", 4) == 0) y->chroma = VQE_CHROMA_400;
      else if (strncmp(tag + 1, "422", 3) == 0) y->chroma = VQE_CHROMA_422;
      else if (strncmp(tag + 1, "444", 3) == 0) y->chroma = VQE_CHROMA_444;
      if (strstr(tag, "p10")) y->bit_depth = 10;
      if (strstr(tag, "p12")) y->bit_depth = 12;
      if (strstr(tag, "p16") || strcmp(tag + 1, "mono16") == 0) y->bit_depth = 16;
      if (strcmp(tag + 1, "mono10") == 0) y->bit_depth = 10;
      if (strcmp(tag + 1, "mono12") == 0) y->bit_depth = 12;
    }
  }
  {
    const size_t bps = y->bit_depth > 8 ? 2 : 1;
    const size_t cw = y->chroma == VQE_CHROMA_444 ? (size_t)y->width : (size_t)(y->width + 1) / 2;
    const size_t ch = y->chroma == VQE_CHROMA_420 ? (size_t)(y->height + 1) / 2 : (size_t)y->height;
    int p;
    y->plane_bytes[0] = (size_t)y->width * y->height * bps;
    y->plane_bytes[1] = y->plane_bytes[2] = y->chroma == VQE_CHROMA_400 ? 0 : cw * ch * bps;
    for (p = 0; p < 3; ++p) y->planes[p] = y->plane_bytes[p] ? malloc(y->plane_bytes[p]) : NULL;
  }
  return 0;
}

/* 1: a frame was read, 0: end of file, -1: error. */
static int y4m_read(Y4m *y, VqePicture *pic) {
  char line[4096];
  int p;
  if (!fgets(line, sizeof line, y->f)) return 0;
  if (strncmp(line, "FRAME", 5) != 0) return -1;
  memset(pic, 0, sizeof *pic);
  pic->width = y->width;
  pic->height = y->height;
  pic->bit_depth = y->bit_depth;
  pic->chroma = y->chroma;
  for (p = 0; p < 3; ++p) {
    if (!y->plane_bytes[p]) continue;
    /* 16-bit words are little-endian in Y4M; this example assumes a
       little-endian host, where they are native already. */
    if (fread(y->planes[p], 1, y->plane_bytes[p], y->f) != y->plane_bytes[p]) return -1;
    pic->data[p] = y->planes[p];
    pic->stride[p] = (ptrdiff_t)(y->plane_bytes[p] / (p == 0 ? (size_t)y->height
                                                     : (y->chroma == VQE_CHROMA_420
                                                            ? (size_t)(y->height + 1) / 2
                                                            : (size_t)y->height)));
  }
  return 1;
}

static void y4m_close(Y4m *y) {
  int p;
  if (y->f) fclose(y->f);
  for (p = 0; p < 3; ++p) free(y->planes[p]);
}

static int check(int status, const char *what) {
  if (status != VQE_OK) fprintf(stderr, "score: %s: %s\n", what, vqe_last_error());
  return status;
}

int main(int argc, char **argv) {
  Y4m ref, dist;
  VqeJob *job = NULL;
  VqePicture rp, dp;
  double mean = 0;
  int i, models = 0, status = 1;
  if (argc < 4) {
    fprintf(stderr, "usage: %s REFERENCE.y4m DISTORTED.y4m OUTPUT.json [MODEL|+FEATURE]...\n",
            argv[0]);
    return 1;
  }
  if (y4m_open(&ref, argv[1]) || y4m_open(&dist, argv[2])) return 1;
  if (check(vqe_job_open(&job, NULL), "open")) goto done;
  for (i = 4; i < argc; ++i) {
    if (argv[i][0] == '+') {
      char name[256];
      const char *eq = strchr(argv[i] + 1, '=');
      size_t n = eq ? (size_t)(eq - argv[i] - 1) : strlen(argv[i] + 1);
      if (n >= sizeof name) n = sizeof name - 1;
      memcpy(name, argv[i] + 1, n);
      name[n] = '\0';
      if (check(vqe_job_use_feature(job, name, eq ? eq + 1 : NULL), argv[i])) goto done;
    } else {
      if (check(vqe_job_use_model(job, argv[i]), argv[i])) goto done;
      ++models;
    }
  }
  if (argc == 4 && check(vqe_job_use_model(job, "version=vmaf_v0.6.1"), "model")) goto done;
  for (;;) {
    const int a = y4m_read(&ref, &rp), b = y4m_read(&dist, &dp);
    if (a < 0 || b < 0) {
      fprintf(stderr, "score: malformed frame\n");
      goto done;
    }
    if (a == 0 || b == 0) break;
    if (check(vqe_job_submit(job, &rp, &dp), "submit")) goto done;
  }
  if (check(vqe_job_finish(job), "finish")) goto done;
  if (check(vqe_job_write_output(job, argv[3], VQE_OUTPUT_JSON, 1), "write")) goto done;
  if ((models > 0 || argc == 4) &&
      vqe_job_score_pooled(job, "vmaf", VQE_POOL_MEAN, 0, UINT32_MAX, &mean) == VQE_OK)
    printf("vmaf mean: %.6f\n", mean);
  status = 0;
done:
  vqe_job_close(job);
  y4m_close(&ref);
  y4m_close(&dist);
  return status;
}
