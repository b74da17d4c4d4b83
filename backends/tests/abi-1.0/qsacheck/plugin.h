/* qsacheck plugin ABI (C99): a kernel built outside the qsacheck tree, loaded with dlopen and
 * checked by every check qsacheck has (`--backend plugin:PATH.so`). docs/plugin-abi.md is the
 * full description, the versioning policy and the changelog.
 *
 * A plugin exports one symbol, QSA_PLUGIN_ENTRY_NAME, returning a table (QsaPlugin) with its name,
 * the SPEC version it implements, its capabilities, its planted variants, and the calls to create
 * and destroy an instance, build the metadata (SPEC 2) and run the step update (SPEC 5).
 *
 * Buffers cross as DLPack 0.6 DLTensors on the device the plugin asks for (CPU, or CUDA on the
 * instance's device ordinal). qsacheck allocates, poisons and fills every buffer, validates every
 * input with the contract's validator first (a plugin only ever sees valid inputs), and copies the
 * outputs back after the call; the plugin only computes. Tensors are dense row-major unless
 * `strides` is non-NULL (block tables and caches may be strided; see the capability flags).
 * fp8 e4m3fn crosses as kDLUInt 8 bits; the store dtype is named in the call's arguments. */

#ifndef QSACHECK_PLUGIN_H_
#define QSACHECK_PLUGIN_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A plugin is loaded when its table's abi_major equals QSA_PLUGIN_ABI_MAJOR. Minor versions only
 * append fields to the end of structs (each struct that may grow carries its size). */
#define QSA_PLUGIN_ABI_MAJOR 1
#define QSA_PLUGIN_ABI_MINOR 0
#define QSA_PLUGIN_ENTRY_NAME "qsa_plugin_entry"

#if defined(_WIN32)
#define QSA_PLUGIN_EXPORT __declspec(dllexport)
#else
#define QSA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---- errors: a code and a message ---------------------------------------------------------- */

typedef enum {
  QSA_PLUGIN_OK = 0,
  QSA_PLUGIN_INVALID_INPUT = 1, /* the input breaks SPEC 1.4; field, index and rule say how */
  QSA_PLUGIN_UNSUPPORTED = 2,   /* outside the declared capabilities */
  QSA_PLUGIN_DEVICE_ERROR = 3,  /* a CUDA call failed; message names it */
  QSA_PLUGIN_INTERNAL = 4       /* anything else */
} QsaPluginCode;

typedef struct {
  char field[64];    /* SPEC 1.4 input name, e.g. "query_start_loc"; may stay empty */
  int64_t index;     /* first offending element, or -1 */
  char rule[64];     /* SPEC 1.4 rule identifier, e.g. "decreasing"; may stay empty */
  char message[512]; /* free text */
} QsaPluginError;

/* ---- capabilities --------------------------------------------------------------------------- */

typedef enum {
  QSA_PLUGIN_KIND_COMPRESSED = 1u << 0,
  QSA_PLUGIN_KIND_RING = 1u << 1,
  QSA_PLUGIN_KIND_PASSTHROUGH = 1u << 2
} QsaPluginKindBits;

typedef enum { QSA_PLUGIN_DTYPE_BF16 = 1u << 0, QSA_PLUGIN_DTYPE_FP8_E4M3 = 1u << 1 } QsaPluginDtypeBits;

typedef enum {
  QSA_PLUGIN_FEATURE_STEP_UPDATE = 1u << 0,          /* step_update is provided */
  QSA_PLUGIN_FEATURE_MROPE = 1u << 1,                /* 3-axis positions with MRoPE sections */
  QSA_PLUGIN_FEATURE_RING_POSITIONS = 1u << 2,       /* the ring caches (t, h, w) after each key */
  QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE = 1u << 3,  /* block tables with any strides (SPEC 1.1) */
  QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES = 1u << 4, /* block stride > rows * row stride (SPEC 4) */
  QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE = 1u << 5,     /* calls may be captured in a CUDA graph */
  QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES = 1u << 6, /* several instances may live at once */
  QSA_PLUGIN_FEATURE_STEP_USES_METADATA = 1u << 7    /* step_update reads the plugin's own metadata */
} QsaPluginFeatureBits;

typedef enum { QSA_PLUGIN_MEMORY_HOST = 1, QSA_PLUGIN_MEMORY_CUDA = 2 } QsaPluginMemory;

typedef struct {
  int64_t min; /* inclusive */
  int64_t max; /* inclusive */
} QsaPluginRange;

typedef struct {
  uint32_t struct_size;              /* sizeof(QsaPluginCapabilities) the plugin was built with */
  uint32_t memory;                   /* QsaPluginMemory: where every buffer of a call lives */
  uint32_t cache_kinds;              /* QsaPluginKindBits the metadata call accepts (non-zero) */
  uint32_t store_dtypes;             /* QsaPluginDtypeBits of the step update's compressed cache and q_out */
  uint32_t features;                 /* QsaPluginFeatureBits */
  QsaPluginRange head_dim;           /* D */
  QsaPluginRange rotary_dim;         /* rd */
  QsaPluginRange num_heads;          /* HQ */
  QsaPluginRange compress_ratio;     /* C (compressed kind and the step update) */
  QsaPluginRange storage_block_size; /* S */
  QsaPluginRange ring_capacity;      /* R */
} QsaPluginCapabilities;

typedef struct {
  const char* name;        /* unique in the plugin, [A-Za-z0-9_.-]+; selected with plugin:PATH#NAME */
  const char* description; /* one line: the planted mistake */
} QsaPluginVariant;

/* ---- calls ---------------------------------------------------------------------------------- */

typedef struct {
  int64_t num_decodes, num_decode_tokens, num_prefills, num_prefill_tokens;
  int64_t max_query_len, decode_query_len, max_seq_len;
} QsaBatchSplit;

typedef enum {
  QSA_PLUGIN_KIND_ID_COMPRESSED = 0,
  QSA_PLUGIN_KIND_ID_RING = 1,
  QSA_PLUGIN_KIND_ID_PASSTHROUGH = 2
} QsaPluginKind;

/* The batch of one step (SPEC 1.1), shared by the metadata and the step update. */
typedef struct {
  int64_t num_actual_tokens;       /* N; rows M..N-1 are padding (M = qsl[NR]) */
  int64_t reorder_batch_threshold; /* T */
  DLTensor query_start_loc;        /* int32 [NR + 1] */
  DLTensor seq_lens;               /* int32 [NR] */
  DLTensor common_slot_mapping;    /* int64 [>= N] */
} QsaPluginBatch;

/* Outputs of one metadata build (SPEC 2), every one poisoned (0xA5 bytes) on entry. */
typedef struct {
  DLTensor token_to_req;      /* int32 [N] */
  DLTensor logical_positions; /* int64 [N] */
  DLTensor visible_blocks;    /* int32 [N] */
  DLTensor slot_mapping;      /* int64 [N] */
  DLTensor k_work_metadata;   /* int32 [K, 2]; K = 0 unless compressed */
  QsaBatchSplit* split;       /* host memory, always */
} QsaPluginMetadata;

typedef struct {
  uint32_t struct_size;       /* sizeof(QsaPluginMetadataArgs) as qsacheck was built */
  uint32_t cache_kind;        /* QsaPluginKind */
  int64_t compress_ratio;     /* compressed: C; ring: builder ratio Cb; passthrough: 1 */
  int64_t storage_block_size; /* S (compressed) */
  int64_t ring_capacity;      /* R (ring) */
  QsaPluginBatch batch;
  DLTensor block_table; /* int32 [rows >= NR, W], strides in elements (possibly non-NULL) */
  QsaPluginMetadata out;
  void* stream; /* CUstream on the device's primary context (CUDA plugins), else NULL */
} QsaPluginMetadataArgs;

typedef enum { QSA_PLUGIN_STORE_BF16 = 0, QSA_PLUGIN_STORE_FP8_E4M3 = 1 } QsaPluginStoreDtype;
typedef enum { QSA_PLUGIN_STEP_OK = 0, QSA_PLUGIN_STEP_POSITION_OUT_OF_RANGE = 1 } QsaPluginStepStatus;

typedef struct {
  uint32_t struct_size;                                      /* sizeof(QsaPluginStepArgs) as qsacheck was built */
  uint32_t store_dtype;                                      /* QsaPluginStoreDtype of compressed_cache and q_out */
  int64_t compress_ratio, storage_block_size, ring_capacity; /* C, S, R */
  int64_t head_dim, rotary_dim, num_heads;                   /* D, rd, HQ */
  float eps;                                                 /* RMSNorm epsilon, Q and K */
  int32_t has_mrope;                                         /* 1: mrope_sections apply */
  int32_t mrope_sections[3];                                 /* (sec_t, sec_h, sec_w), summing to rd / 2 */
  int32_t ring_positions; /* 1: ring rows carry (t, h, w) at element P = 4 * ceil(D / 4) */
  int64_t max_position;   /* rows of cos_sin */
  QsaPluginBatch batch;
  DLTensor block_table;      /* int32 [>= NR, W]: compressed group */
  DLTensor ring_block_table; /* int32 [>= NR, W']: column 0 is the ring block */
  DLTensor keys;             /* bf16 [N, D] */
  DLTensor queries;          /* bf16 [N, HQ, D] */
  DLTensor positions;        /* int64 [N] or [3, N] */
  DLTensor cos_sin;          /* bf16 [max_position, rd] */
  DLTensor w_k, w_q;         /* bf16 [D] */
  DLTensor ring_cache;       /* bf16 [blocks, R, width], strides (block, row, 1); in/out */
  DLTensor compressed_cache; /* bf16 or uint8 (fp8) [blocks, S, D], strides; in/out */
  DLTensor q_out;            /* bf16 or uint8 (fp8) [N, HQ, D]; poisoned on entry */
  DLTensor step_status;      /* int32 [1]: QsaPluginStepStatus; poisoned on entry */
  /* With QSA_PLUGIN_FEATURE_STEP_USES_METADATA: this plugin's own metadata of this step for the
   * compressed and the ring group (qsacheck checked both against the contract); else NULL. */
  const QsaPluginMetadata* compressed_metadata;
  const QsaPluginMetadata* ring_metadata;
  void* stream; /* CUstream on the device's primary context (CUDA plugins), else NULL */
} QsaPluginStepArgs;

typedef struct {
  uint32_t struct_size;   /* sizeof(QsaPluginInstanceArgs) as qsacheck was built */
  int32_t device_ordinal; /* CUDA device (CUDA plugins; the primary context is current), else -1 */
  const char* variant;    /* a planted variant's name, or NULL for the plugin as shipped */
} QsaPluginInstanceArgs;

typedef struct QsaPlugin {
  uint32_t abi_major;       /* QSA_PLUGIN_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;       /* QSA_PLUGIN_ABI_MINOR */
  uint32_t struct_size;     /* sizeof(QsaPlugin) */
  const char* name;         /* e.g. "example-host" */
  const char* spec_version; /* the contract version implemented, e.g. "1" */
  const char* build_info;   /* free text: compiler, commit, flags */
  const QsaPluginCapabilities* capabilities;
  const QsaPluginVariant* variants; /* num_variants entries, or NULL */
  int32_t num_variants;

  /* Every call returns a QsaPluginCode and fills *error on failure. CUDA plugins may work
   * asynchronously on args->stream; qsacheck synchronizes it before reading anything. */
  int32_t (*create)(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error);
  void (*destroy)(void* instance);
  int32_t (*build_metadata)(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError* error);
  /* NULL unless QSA_PLUGIN_FEATURE_STEP_UPDATE. */
  int32_t (*step_update)(void* instance, const QsaPluginStepArgs* args, QsaPluginError* error);
} QsaPlugin;

/* The one exported symbol: `QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void);` */
typedef const QsaPlugin* (*QsaPluginEntry)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QSACHECK_PLUGIN_H_ */
