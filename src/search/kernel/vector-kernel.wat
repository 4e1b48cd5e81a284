;; Vector scoring kernel: int8 rows against an int16 query, with WebAssembly SIMD.
;;
;; Memory is imported (the index owns and grows it). Layout is decided by the caller:
;;   query  : `stride` int16 values (the query quantised to |d| <= L with stride·L·127 < 2^31), 16-byte aligned
;;   rows   : int8 rows of `stride` bytes each (stride is a multiple of 16; padding bytes are 0)
;;   out    : one i32 exact integer dot product per scored row
;;   idx    : (*_idx only) i32 row numbers to score
;;   meta   : (score_* only) three f32 planes of `plane` bytes each: scale[], err[], qnorm[] per row
;;   outU   : (score_* only) one f32 upper bound per scored row (see int8-index.ts)
;;
;; Per 16 row bytes: one load, two sign-extensions to i16x8, two i32x4.dot_i16x8_s against the
;; pre-widened query, two adds into two accumulators. One row at a time is fastest in V8 (variants scoring
;; 2 or 4 rows that share the query loads measured several times slower).
;; The caller bounds the query codes so that stride·max|q|·127 < 2^31: no partial sum can overflow i32.
(module
  (import "env" "memory" (memory 1 65536 shared))

  ;; Dot products of the query with one row; returns the i32 sum.
  (func $dot (param $q i32) (param $row i32) (param $stride i32) (result i32)
    (local $end i32) (local $acc0 v128) (local $acc1 v128) (local $b v128)
    (local.set $end (i32.add (local.get $row) (local.get $stride)))
    (loop $cols
      (local.set $b (v128.load (local.get $row)))
      (local.set $acc0
        (i32x4.add (local.get $acc0)
          (i32x4.dot_i16x8_s (v128.load (local.get $q)) (i16x8.extend_low_i8x16_s (local.get $b)))))
      (local.set $acc1
        (i32x4.add (local.get $acc1)
          (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $q)) (i16x8.extend_high_i8x16_s (local.get $b)))))
      (local.set $q (i32.add (local.get $q) (i32.const 32)))
      (br_if $cols (i32.lt_u (local.tee $row (i32.add (local.get $row) (i32.const 16))) (local.get $end))))
    (local.set $acc0 (i32x4.add (local.get $acc0) (local.get $acc1)))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $acc0)) (i32x4.extract_lane 1 (local.get $acc0)))
      (i32.add (i32x4.extract_lane 2 (local.get $acc0)) (i32x4.extract_lane 3 (local.get $acc0)))))

  ;; Scores `n` contiguous rows starting at `rows`: out[i] = dot(query, row i).
  (func (export "dot_rows") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (i32.store (local.get $out) (call $dot (local.get $q) (local.get $rows) (local.get $stride)))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $each))))

  ;; Scores the rows listed in idx[0..n): out[i] = dot(query, base + idx[i] * stride).
  (func (export "dot_idx") (param $q i32) (param $base i32) (param $idx i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $idx) (local.get $end)))
        (i32.store (local.get $out)
          (call $dot (local.get $q)
            (i32.add (local.get $base) (i32.mul (i32.load (local.get $idx)) (local.get $stride)))
            (local.get $stride)))
        (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $rows))))

  ;; dot and upper bound of one row: stores the i32 dot at $outDot and, at $outU, the f32 upper bound
  ;;   u = f32(dot)·sq·scale[r] + err[r] + fq·qnorm[r]
  ;; ($meta points at scale[r]; err[r] and qnorm[r] sit $plane and 2·$plane bytes further).
  (func $score (param $q i32) (param $row i32) (param $stride i32) (param $meta i32) (param $plane i32)
               (param $sq f32) (param $fq f32) (param $outDot i32) (param $outU i32)
    (local $d i32)
    (local.set $d (call $dot (local.get $q) (local.get $row) (local.get $stride)))
    (i32.store (local.get $outDot) (local.get $d))
    (f32.store (local.get $outU)
      (f32.add
        (f32.mul (f32.mul (f32.convert_i32_s (local.get $d)) (local.get $sq)) (f32.load (local.get $meta)))
        (f32.add
          (f32.load (i32.add (local.get $meta) (local.get $plane)))
          (f32.mul (local.get $fq) (f32.load (i32.add (local.get $meta) (i32.shl (local.get $plane) (i32.const 1)))))))))

  ;; Scores `n` contiguous rows (dots and upper bounds); $meta points at scale[first row].
  (func (export "score_rows") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32)
        (param $meta i32) (param $plane i32) (param $sq f32) (param $fq f32) (param $outDot i32) (param $outU i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $outDot) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $outDot) (local.get $end)))
        (call $score (local.get $q) (local.get $rows) (local.get $stride) (local.get $meta) (local.get $plane)
          (local.get $sq) (local.get $fq) (local.get $outDot) (local.get $outU))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $meta (i32.add (local.get $meta) (i32.const 4)))
        (local.set $outDot (i32.add (local.get $outDot) (i32.const 4)))
        (local.set $outU (i32.add (local.get $outU) (i32.const 4)))
        (br $each))))

  ;; Scores the rows listed in idx[0..n); $base is row 0 of the matrix, $meta points at scale[0].
  (func (export "score_idx") (param $q i32) (param $base i32) (param $idx i32) (param $n i32) (param $stride i32)
        (param $meta i32) (param $plane i32) (param $sq f32) (param $fq f32) (param $outDot i32) (param $outU i32)
    (local $end i32) (local $r i32)
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $idx) (local.get $end)))
        (local.set $r (i32.load (local.get $idx)))
        (call $score (local.get $q)
          (i32.add (local.get $base) (i32.mul (local.get $r) (local.get $stride))) (local.get $stride)
          (i32.add (local.get $meta) (i32.shl (local.get $r) (i32.const 2))) (local.get $plane)
          (local.get $sq) (local.get $fq) (local.get $outDot) (local.get $outU))
        (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
        (local.set $outDot (i32.add (local.get $outDot) (i32.const 4)))
        (local.set $outU (i32.add (local.get $outU) (i32.const 4)))
        (br $each))))

  ;; ---------------------------------------------------------------------------------------------------------------
  ;; Row quantisation for index builds (the JS reference, and the meaning of the numbers, is quantiseRow in
  ;; src/search/vector/quantize.ts; the wrapper is src/search/vector/row-quantiser.ts).
  ;;
  ;;   quantise_row(src, stride, dst, out) -> 1, or 0 when the row holds a NaN or an infinity (dst, out untouched)
  ;;     src : the f32 vector v, zero padded to `stride` values (stride a multiple of 16, at most 16384); the kernel
  ;;           may overwrite it (with an exact rescaling of v, for extreme magnitudes)
  ;;     dst : `stride` int8 codes cᵢ = round_half_even(xᵢ·fl32(1/s)) ∈ [-127, 127], xᵢ ≈ v̂ᵢ (below)
  ;;     out : f32 s (scale), f32 err ≥ ‖v̂ − s·c‖₂, f32 qnorm ≥ ‖s·c‖₂, v̂ = v/‖v‖ the EXACT unit vector
  ;;   A zero vector gives s = err = qnorm = 0 and zero codes.
  ;;
  ;; Everything per value is f32x4, 16 values per step (4 loads; one accumulator per sum, fed the step's four
  ;; vectors added pairwise, which keeps register pressure low in V8), in two passes over the (L1-resident) row:
  ;;   1. max|vᵢ| (on the bit patterns: finds NaN/Inf too) and N = Σvᵢ² (f32)
  ;;   2. xᵢ = fl(uᵢ·t), t = fl32(1/sqrt(N)); the codes; Σẽᵢ² (f32, ẽᵢ = fl(xᵢ − fl(s·cᵢ))) and C = Σcᵢ² (exact, i32)
  ;; where u = v when max|v| ∈ [2^-20, 2^20) (then Σv² can neither overflow nor lose more than 2^-96 relative to
  ;; underflow, and t is a normal f32). Otherwise an extra pass first rescales the row in place by an exact power of
  ;; two, u = w = fl(v·2^k) with max|wᵢ| in [1, 2) (in [2^-22, 1) when every value is subnormal), and recomputes N;
  ;; then w/‖w‖ = v̂ up to the underflow of fl(v·2^k), at most 2^-150 per value.
  ;;
  ;; Error bound (u₂₄ = 2^-24; every f32 op is exact·(1+δ), |δ| ≤ u₂₄, plus at most 2^-150 absolute when it
  ;; underflows; every term of a sum here passes through at most 2 + stride/16 + 2 additions: the step's pairwise
  ;; tree, the accumulator, the lanes):
  ;;   N  = ‖u‖²(1+ν),  |ν| ≤ γ_K + 2^-90,  γ_K = K·u₂₄/(1 − K·u₂₄), K = stride/16 + 6
  ;;        (the square, the additions, and the underflow terms: at most stride·2^-150 ≤ 2^-136 absolute, tiny next
  ;;        to ‖u‖² ≥ 2^-40 on the fast path, ≥ 2^-44 rescaled, where fl(v·2^k) adds ≤ 2^-121 relative to ‖u‖)
  ;;   t  = fl32(1/sqrt(N)) (f64 sqrt and divide) = (1/‖u‖)(1+η),  |η| ≤ 1.03125·(0.515625·|ν| + u₂₄ + 2^-51)
  ;;   x  = fl(u·t):  ‖x − v̂‖ ≤ ρ = 1.03125·(η + u₂₄) + 2^-120
  ;;   dᵢ = fl(s·cᵢ) = s·cᵢ(1+δ) (s ≥ 2^-14: never underflows), ẽᵢ = (xᵢ − dᵢ)(1+δ') (a subtraction's only error),
  ;;        so ‖x − s·c‖ ≤ ‖ẽ‖/(1−u₂₄) + u₂₄·‖s·c‖
  ;;   S  = fl(Σfl(ẽᵢ²)):  ‖ẽ‖² ≤ (S/(1−γ_K) + stride·2^-149)/(1−u₂₄)
  ;;   err   = ‖ẽ‖/(1−u₂₄) + u₂₄·qnorm + ρ  ≥  ‖v̂ − s·c‖  (the triangle inequality through x)
  ;;   qnorm = s·sqrt(C)·(1 + 2^-50)  ≥  ‖s·c‖ = s·sqrt(C)  (f64 sqrt and product)
  ;; (1.03125 bounds |∏(1+aᵢ) − 1| / Σ|aᵢ| for Σ|aᵢ| ≤ 0.03; 0.515625 bounds |d/dν (1+ν)^-½| for |ν| ≤ 0.01.)
  ;; The f64 epilogue rounds a handful of times, on positive terms only (< 2^-48 relative in all): a final
  ;; ×(1 + 2^-40) covers it, and the f32 results are rounded up, never to nearest.

  ;; The largest of four non-negative i32 lanes.
  (func $hmax4 (param $v v128) (result i32)
    (local $a i32) (local $b i32)
    (local.set $a (select (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v))
      (i32.gt_s (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))))
    (local.set $b (select (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v))
      (i32.gt_s (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))
    (select (local.get $a) (local.get $b) (i32.gt_s (local.get $a) (local.get $b))))

  ;; The lanes of an f32x4 accumulator summed pairwise: two additions on every lane's path.
  (func $hsum4 (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; The smallest f32 ≥ x, for x ≥ 0 (f32.demote_f64 rounds to nearest; step one ulp up when that went down).
  (func $roundUp (param $x f64) (result f32)
    (local $r f32)
    (local.set $r (f32.demote_f64 (local.get $x)))
    (if (f64.lt (f64.promote_f32 (local.get $r)) (local.get $x))
      (then (local.set $r (f32.reinterpret_i32 (i32.add (i32.reinterpret_f32 (local.get $r)) (i32.const 1))))))
    (local.get $r))

  ;; The extreme-magnitude path: src[i] = fl(src[i]·2^k) in place, with k chosen from the biased exponent `exp` of
  ;; max|vᵢ| (k = 127 − exp, or 127 for a subnormal max: k ∈ [−127, 127], 2^k an exact f32, 2^-127 a subnormal).
  ;; Returns Σ(the new values)², as pass 1 computes it for the fast path.
  (func $rescale (param $src i32) (param $end i32) (param $exp i32) (result f32)
    (local $P v128) (local $w0 v128) (local $w1 v128) (local $w2 v128) (local $w3 v128) (local $n v128)
    (local.set $P (f32x4.splat (f32.demote_f64 (f64.reinterpret_i64 (i64.shl
      (i64.extend_i32_s (i32.add (select (i32.const 127) (i32.sub (i32.const 127) (local.get $exp)) (i32.eqz (local.get $exp)))
        (i32.const 1023)))
      (i64.const 52))))))
    (loop $each
      (local.set $w0 (f32x4.mul (v128.load (local.get $src)) (local.get $P)))
      (local.set $w1 (f32x4.mul (v128.load offset=16 (local.get $src)) (local.get $P)))
      (local.set $w2 (f32x4.mul (v128.load offset=32 (local.get $src)) (local.get $P)))
      (local.set $w3 (f32x4.mul (v128.load offset=48 (local.get $src)) (local.get $P)))
      (v128.store (local.get $src) (local.get $w0))
      (v128.store offset=16 (local.get $src) (local.get $w1))
      (v128.store offset=32 (local.get $src) (local.get $w2))
      (v128.store offset=48 (local.get $src) (local.get $w3))
      (local.set $n (f32x4.add (local.get $n)
        (f32x4.add
          (f32x4.add (f32x4.mul (local.get $w0) (local.get $w0)) (f32x4.mul (local.get $w1) (local.get $w1)))
          (f32x4.add (f32x4.mul (local.get $w2) (local.get $w2)) (f32x4.mul (local.get $w3) (local.get $w3))))))
      (br_if $each (i32.lt_u (local.tee $src (i32.add (local.get $src) (i32.const 64))) (local.get $end))))
    (call $hsum4 (local.get $n)))

  (func (export "quantise_row") (param $src i32) (param $stride i32) (param $dst i32) (param $out i32) (result i32)
    (local $p i32) (local $q i32) (local $end i32) (local $bits i32) (local $exp i32)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    (local $i0 v128) (local $i1 v128) (local $i2 v128) (local $i3 v128)
    (local $h0 v128) (local $h1 v128) (local $e0 v128) (local $e1 v128) (local $e2 v128) (local $e3 v128)
    (local $amax v128) (local $acc v128) (local $cc v128)
    (local $T v128) (local $R v128) (local $S v128) (local $MAGIC v128) (local $ABS v128)
    (local $N f32) (local $umax f32) (local $scale f32)
    (local $inv f64) (local $ku f64) (local $g f64) (local $eta f64) (local $rho f64) (local $Q f64) (local $E f64)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $stride) (i32.const 2))))

    ;; Pass 1: max|vᵢ| on the bit patterns (with the sign bit cleared, integer order is float order, and a NaN or
    ;; an infinity has bits ≥ 0x7f800000, above every finite value; i32x4.max_s is one x64 instruction where
    ;; f32x4.max is several), and N = Σvᵢ², meaningful only on the fast path.
    (local.set $ABS (v128.const i32x4 0x7fffffff 0x7fffffff 0x7fffffff 0x7fffffff))
    (local.set $p (local.get $src))
    (loop $pass1
      (local.set $x0 (v128.load (local.get $p)))
      (local.set $x1 (v128.load offset=16 (local.get $p)))
      (local.set $x2 (v128.load offset=32 (local.get $p)))
      (local.set $x3 (v128.load offset=48 (local.get $p)))
      (local.set $amax (i32x4.max_s (local.get $amax) (i32x4.max_s
        (i32x4.max_s (v128.and (local.get $x0) (local.get $ABS)) (v128.and (local.get $x1) (local.get $ABS)))
        (i32x4.max_s (v128.and (local.get $x2) (local.get $ABS)) (v128.and (local.get $x3) (local.get $ABS))))))
      ;; One accumulator, the four squares added pairwise first: every term still sees stride/16 + 4 additions.
      (local.set $acc (f32x4.add (local.get $acc)
        (f32x4.add
          (f32x4.add (f32x4.mul (local.get $x0) (local.get $x0)) (f32x4.mul (local.get $x1) (local.get $x1)))
          (f32x4.add (f32x4.mul (local.get $x2) (local.get $x2)) (f32x4.mul (local.get $x3) (local.get $x3))))))
      (br_if $pass1 (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 64))) (local.get $end))))
    (local.set $bits (call $hmax4 (local.get $amax)))
    (if (i32.ge_u (local.get $bits) (i32.const 0x7f800000)) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $bits))
      (then
        (local.set $q (local.get $dst))
        (local.set $end (i32.add (local.get $dst) (local.get $stride)))
        (loop $zero
          (v128.store (local.get $q) (v128.const i32x4 0 0 0 0))
          (br_if $zero (i32.lt_u (local.tee $q (i32.add (local.get $q) (i32.const 16))) (local.get $end))))
        (f32.store (local.get $out) (f32.const 0))
        (f32.store offset=4 (local.get $out) (f32.const 0))
        (f32.store offset=8 (local.get $out) (f32.const 0))
        (return (i32.const 1))))
    (local.set $exp (i32.shr_u (local.get $bits) (i32.const 23)))
    (local.set $umax (f32.reinterpret_i32 (local.get $bits)))
    ;; Fast path: max ∈ [2^-20, 2^20), biased exponents 107 ..= 146.
    (if (i32.lt_u (i32.sub (local.get $exp) (i32.const 107)) (i32.const 40))
      (then (local.set $N (call $hsum4 (local.get $acc))))
      (else
        (local.set $N (call $rescale (local.get $src) (local.get $end) (local.get $exp)))
        ;; max|wᵢ| is the rescaled max, exactly (it lands in [2^-22, 2)).
        (local.set $umax (f32.mul (local.get $umax) (f32.demote_f64 (f64.reinterpret_i64 (i64.shl
          (i64.extend_i32_s (i32.add (select (i32.const 127) (i32.sub (i32.const 127) (local.get $exp)) (i32.eqz (local.get $exp)))
            (i32.const 1023)))
          (i64.const 52))))))))

    (local.set $inv (f64.div (f64.const 1) (f64.sqrt (f64.promote_f32 (local.get $N)))))
    ;; s = fl32(max|uᵢ|·(1/‖u‖) / 127), as quantiseRow computes it; the codes use R = fl32(1/s).
    (local.set $scale (f32.demote_f64
      (f64.div (f64.mul (f64.promote_f32 (local.get $umax)) (local.get $inv)) (f64.const 127))))
    (local.set $T (f32x4.splat (f32.demote_f64 (local.get $inv))))
    (local.set $R (f32x4.splat (f32.demote_f64 (f64.div (f64.const 1) (f64.promote_f32 (local.get $scale))))))
    (local.set $S (f32x4.splat (local.get $scale)))
    ;; y + 1.5·2^23 rounds y (|y| < 2^22) to the nearest integer, ties to even, into the low mantissa bits.
    (local.set $MAGIC (v128.const f32x4 12582912 12582912 12582912 12582912))

    ;; Pass 2: xᵢ = fl(uᵢ·t), cᵢ = round(xᵢ·R), ẽᵢ = fl(xᵢ − fl(s·cᵢ)); Σẽᵢ² (f32) and Σcᵢ² (exact, i32).
    ;; No clamp is needed: |uᵢ| ≤ max|u| and rounding is monotonic, so |fl(xᵢ·R)| ≤ fl(fl(max|u|·t)·R); with
    ;; t ≤ inv·(1+u₂₄), R ≤ (1/s)(1+u₂₄) and s ≥ (max|u|·inv/127)(1−u₂₄)(1−2^-53)² that is < 127·(1+2^-20) < 127.5,
    ;; and rounding to the nearest integer keeps every code in [-127, 127] (the narrows below saturate, but never
    ;; need to; the tests check |c| ≤ 127 on extreme inputs too).
    (local.set $acc (v128.const i32x4 0 0 0 0))
    (local.set $p (local.get $src))
    (local.set $q (local.get $dst))
    (loop $pass2
      (local.set $x0 (f32x4.mul (v128.load (local.get $p)) (local.get $T)))
      (local.set $x1 (f32x4.mul (v128.load offset=16 (local.get $p)) (local.get $T)))
      (local.set $x2 (f32x4.mul (v128.load offset=32 (local.get $p)) (local.get $T)))
      (local.set $x3 (f32x4.mul (v128.load offset=48 (local.get $p)) (local.get $T)))
      (local.set $i0 (i32x4.sub (f32x4.add (f32x4.mul (local.get $x0) (local.get $R)) (local.get $MAGIC)) (local.get $MAGIC)))
      (local.set $i1 (i32x4.sub (f32x4.add (f32x4.mul (local.get $x1) (local.get $R)) (local.get $MAGIC)) (local.get $MAGIC)))
      (local.set $i2 (i32x4.sub (f32x4.add (f32x4.mul (local.get $x2) (local.get $R)) (local.get $MAGIC)) (local.get $MAGIC)))
      (local.set $i3 (i32x4.sub (f32x4.add (f32x4.mul (local.get $x3) (local.get $R)) (local.get $MAGIC)) (local.get $MAGIC)))
      (local.set $e0 (f32x4.sub (local.get $x0) (f32x4.mul (f32x4.convert_i32x4_s (local.get $i0)) (local.get $S))))
      (local.set $e1 (f32x4.sub (local.get $x1) (f32x4.mul (f32x4.convert_i32x4_s (local.get $i1)) (local.get $S))))
      (local.set $e2 (f32x4.sub (local.get $x2) (f32x4.mul (f32x4.convert_i32x4_s (local.get $i2)) (local.get $S))))
      (local.set $e3 (f32x4.sub (local.get $x3) (f32x4.mul (f32x4.convert_i32x4_s (local.get $i3)) (local.get $S))))
      (local.set $acc (f32x4.add (local.get $acc)
        (f32x4.add
          (f32x4.add (f32x4.mul (local.get $e0) (local.get $e0)) (f32x4.mul (local.get $e1) (local.get $e1)))
          (f32x4.add (f32x4.mul (local.get $e2) (local.get $e2)) (f32x4.mul (local.get $e3) (local.get $e3))))))
      ;; Narrowing keeps lane order (and is exact on [-127, 127]).
      (local.set $h0 (i16x8.narrow_i32x4_s (local.get $i0) (local.get $i1)))
      (local.set $h1 (i16x8.narrow_i32x4_s (local.get $i2) (local.get $i3)))
      (v128.store (local.get $q) (i8x16.narrow_i16x8_s (local.get $h0) (local.get $h1)))
      (local.set $cc (i32x4.add (local.get $cc)
        (i32x4.add (i32x4.dot_i16x8_s (local.get $h0) (local.get $h0)) (i32x4.dot_i16x8_s (local.get $h1) (local.get $h1)))))
      (local.set $q (i32.add (local.get $q) (i32.const 16)))
      (br_if $pass2 (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 64))) (local.get $end))))

    ;; Epilogue (f64): the bounds derived above.
    (local.set $Q (f64.mul
      (f64.mul (f64.promote_f32 (local.get $scale))
        (f64.sqrt (f64.convert_i32_u
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $cc)) (i32x4.extract_lane 1 (local.get $cc)))
            (i32.add (i32x4.extract_lane 2 (local.get $cc)) (i32x4.extract_lane 3 (local.get $cc)))))))
      (f64.add (f64.const 1) (f64.const 0x1p-50))))
    (local.set $ku (f64.mul
      (f64.add (f64.convert_i32_u (i32.shr_u (local.get $stride) (i32.const 4))) (f64.const 6)) (f64.const 0x1p-24)))
    (local.set $g (f64.div (local.get $ku) (f64.sub (f64.const 1) (local.get $ku))))
    (local.set $eta (f64.mul (f64.const 1.03125)
      (f64.add (f64.mul (f64.const 0.515625) (f64.add (local.get $g) (f64.const 0x1p-90)))
        (f64.add (f64.const 0x1p-24) (f64.const 0x1p-51)))))
    (local.set $rho (f64.add
      (f64.mul (f64.const 1.03125) (f64.add (local.get $eta) (f64.const 0x1p-24))) (f64.const 0x1p-120)))
    (local.set $E (f64.sqrt (f64.div
      (f64.add
        (f64.div (f64.promote_f32 (call $hsum4 (local.get $acc)))
          (f64.sub (f64.const 1) (local.get $g)))
        (f64.mul (f64.convert_i32_u (local.get $stride)) (f64.const 0x1p-149)))
      (f64.sub (f64.const 1) (f64.const 0x1p-24)))))
    (f32.store (local.get $out) (local.get $scale))
    (f32.store offset=4 (local.get $out) (call $roundUp (f64.mul
      (f64.add
        (f64.add (f64.div (local.get $E) (f64.sub (f64.const 1) (f64.const 0x1p-24))) (f64.mul (f64.const 0x1p-24) (local.get $Q)))
        (local.get $rho))
      (f64.add (f64.const 1) (f64.const 0x1p-40)))))
    (f32.store offset=8 (local.get $out) (call $roundUp (f64.mul (local.get $Q) (f64.add (f64.const 1) (f64.const 0x1p-40)))))
    (i32.const 1))
)
