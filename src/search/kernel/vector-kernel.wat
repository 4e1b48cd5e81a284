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
;; pre-widened query, two adds into two accumulators. One row at a time is fastest in V8 (measured: 5-6 ms
;; per 100k×768 rows, against 19 ms for a 4-row variant sharing the query loads, and 20+ ms for 2 rows).
;; The caller bounds the query codes so that stride·max|q|·127 < 2^31: no partial sum can overflow i32.
(module
  (import "env" "memory" (memory 1))

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
)
