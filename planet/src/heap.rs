//! Buffers trimmed to whole allocator blocks. The programs allocate with
//! mimalloc (`tools`, `smoke-tests`), which hands out blocks in size classes:
//! 16-byte steps up to 64 bytes, then four classes a doubling (a 9 KiB
//! buffer takes a 10 KiB block) up to 512 KiB, whole 4 KiB pages beyond.
//! A kept buffer is trimmed to fill its block, so the capacities a region
//! counts (`BuiltRegion::bytes`, which the cache's budget sums) are the
//! bytes the allocator holds for it, to within one element. Rust's
//! `shrink_to_fit` would not do: mimalloc keeps a block that shrinks by
//! less than half where it is, so a buffer that lost a third of its
//! capacity still held all of it.
//!
//! Under another allocator the count is what was asked for, as before.

/// The machine word mimalloc counts sizes in.
const WORD: usize = 8;

/// The largest block mimalloc gives from a size class; larger ones are
/// whole pages (`MI_LARGE_MAX_OBJ_SIZE` with its large pages on, the default).
const LARGEST_CLASS: usize = 512 * 1024;

/// The page size larger blocks are rounded to (`mi_good_size`'s rounding).
/// `mi_usable_size` showed such blocks whole 64 KiB arena slices (557,056
/// bytes held 589,824), so a buffer over 512 KiB may hold up to 60 KiB
/// more than it counts; a region's buffers seldom are (56 allocations on a
/// low pass of 10,000 regions).
const PAGE: usize = 4096;

/// The bytes of the block mimalloc gives for an allocation of `bytes`
/// (its `mi_good_size` on x86-64 and aarch64 release builds: `mi_bin` in
/// `page-queue.c`, with two-word alignment). 0 for 0.
#[must_use]
pub const fn block_bytes(bytes: usize) -> usize {
    if bytes == 0 {
        return 0;
    }
    if bytes > LARGEST_CLASS {
        return bytes.next_multiple_of(PAGE);
    }
    let words = bytes.div_ceil(WORD);
    if words <= 8 {
        // Whole pairs of words.
        return if words <= 1 { WORD } else { words.next_multiple_of(2) * WORD };
    }
    // The top three bits of (words - 1) pick the class: four a doubling.
    let w = words - 1;
    let top = (usize::BITS - 1 - w.leading_zeros()) as usize;
    let step = 1usize << (top - 2);
    ((w >> (top - 2)) + 1) * step * WORD
}

/// Trims `v` to the capacity that fills the block its length needs (an
/// empty vector lets its block go), moving it to a fresh block where its
/// capacity differs. Returns whether it moved.
pub fn fit_to_block<T: Clone>(v: &mut Vec<T>) -> bool {
    let size = size_of::<T>();
    if size == 0 {
        return false;
    }
    let capacity = block_capacity(v.len(), size);
    if v.capacity() == capacity {
        return false;
    }
    let mut fitted = Vec::with_capacity(capacity);
    fitted.extend_from_slice(v);
    *v = fitted;
    true
}

/// The capacity, in elements of `size` bytes, that fills the block `len`
/// of them need, short of the block's last byte where that leaves room
/// for `len`: mimalloc gives some allocations of exactly a class's size a
/// block of the next class (a streamed walk: over a thousand of 28 KiB and
/// 48 KiB took 32 and 56; one byte less, five did).
#[must_use]
pub fn block_capacity(len: usize, size: usize) -> usize {
    (block_bytes(len * size).saturating_sub(1) / size.max(1)).max(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mimalloc's first size classes, in words (`MI_PAGE_QUEUES_EMPTY` in
    /// its `init.c`, two-word alignment): 1, 2, 4, 6, 8, then 10, 12, 14,
    /// 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, ...
    #[test]
    fn block_sizes_are_mimallocs_classes() {
        let classes = [1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160];
        let mut want = classes.iter().map(|w| w * WORD);
        let mut class = want.next().unwrap();
        for bytes in 1..=160 * WORD {
            while bytes > class {
                class = want.next().unwrap();
            }
            assert_eq!(block_bytes(bytes), class, "{bytes} bytes");
        }
        assert_eq!(block_bytes(9 * 1024), 10 * 1024);
        assert_eq!(block_bytes(LARGEST_CLASS), LARGEST_CLASS);
        assert_eq!(block_bytes(LARGEST_CLASS - 1), LARGEST_CLASS);
        assert_eq!(block_bytes(LARGEST_CLASS + 1), LARGEST_CLASS + PAGE);
        assert_eq!(block_bytes(0), 0);
    }

    #[test]
    fn a_block_is_its_own_class_and_wastes_under_a_quarter() {
        for bytes in (1..3 * LARGEST_CLASS).step_by(7) {
            let block = block_bytes(bytes);
            assert!(block >= bytes, "{bytes}");
            assert_eq!(block_bytes(block), block, "{bytes}");
            // Beyond the 16-byte steps, four classes a doubling.
            if bytes > 64 {
                assert!(block - bytes < block / 4 + 1, "{bytes} bytes take {block}");
            }
        }
    }

    #[test]
    fn fitted_vectors_fill_their_blocks_and_keep_their_elements() {
        for len in [0usize, 1, 5, 100, 853, 1000, 40_000] {
            let mut v: Vec<[f32; 3]> = (0..len).map(|i| [i as f32; 3]).collect();
            v.reserve(len / 3 + 7);
            let before = v.clone();
            fit_to_block(&mut v);
            assert_eq!(v, before);
            let bytes = v.capacity() * 12;
            assert!(v.capacity() >= len, "{len}: capacity {}", v.capacity());
            assert!(bytes <= block_bytes(len * 12) && block_bytes(len * 12) - bytes <= 12, "{len}: {bytes}");
            assert!(bytes < block_bytes(len * 12) || bytes == len * 12, "{len}: {bytes} bytes ask for a whole block");
            assert!(!fit_to_block(&mut v), "{len}: a fitted vector moves again");
        }
    }
}
