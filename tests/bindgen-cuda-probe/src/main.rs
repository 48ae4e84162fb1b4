//! Makes bindgen_cuda's Builder as a crate's build script does (candle-kernels, candle-flash-attn):
//! it parses CUDA_COMPUTE_CAP and checks it against `nvcc --list-gpu-code`, and panics when either
//! fails; it prints `cargo:rustc-env=CUDA_COMPUTE_CAP=N` when it took the value.
fn main() {
    let _ = bindgen_cuda::Builder::default();
}
