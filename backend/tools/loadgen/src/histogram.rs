//! A log-linear histogram of microsecond values, in the style of HdrHistogram.
//!
//! Values below 256 µs have a bucket each; above that every power of two is split into 128
//! buckets, so a reported percentile is at most 0.8% above the value that was recorded (it is the
//! highest value of its bucket, capped at the exact maximum). Count, sum, min and max are exact.
//! Recording is an index computation and an increment. Buckets are stored in groups of 128 that
//! are allocated when first used (1 KiB each), so a histogram with a narrow range stays small.

use std::time::Duration;

/// Values below this have a bucket of their own.
const EXACT: u64 = 256;
/// Buckets per power of two above `EXACT` (2^7).
const SUB_BITS: u32 = 7;
/// Values are clamped below 2^40 µs (about 12.7 days).
const MAX_EXP: u32 = 40;
const GROUP: usize = 1 << SUB_BITS;
const BUCKETS: usize = EXACT as usize + (MAX_EXP - 8) as usize * GROUP;
const GROUPS: usize = BUCKETS / GROUP;
const CLAMP: u64 = (1 << MAX_EXP) - 1;

/// The summary a report prints for one histogram (all values in microseconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub count: u64,
    pub min: u64,
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p99_9: u64,
    pub max: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Histogram {
    /// Bucket groups by `index / GROUP`; empty until the first record, so histograms that a
    /// mode never uses cost nothing.
    groups: Vec<Option<Box<[u64; GROUP]>>>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn record(&mut self, value: Duration) {
        let micros = u64::try_from(value.as_micros()).unwrap_or(u64::MAX);
        self.record_micros(micros);
    }

    pub fn record_micros(&mut self, micros: u64) {
        let value = micros.min(CLAMP);
        if self.groups.is_empty() {
            self.groups = vec![None; GROUPS];
            self.min = value;
        }
        let i = index(value);
        self.groups[i / GROUP].get_or_insert_with(|| Box::new([0; GROUP]))[i % GROUP] += 1;
        self.count += 1;
        self.sum += u128::from(value);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        if self.groups.is_empty() {
            *self = other.clone();
            return;
        }
        for (mine, theirs) in self.groups.iter_mut().zip(&other.groups) {
            let Some(theirs) = theirs else { continue };
            let mine = mine.get_or_insert_with(|| Box::new([0; GROUP]));
            for (m, t) in mine.iter_mut().zip(theirs.iter()) {
                *m += t;
            }
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The value at quantile `q` (0.0..=1.0): the smallest bucket whose cumulative count reaches
    /// `ceil(q * count)`, reported as that bucket's highest value capped at the maximum.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (g, group) in self.groups.iter().enumerate() {
            let Some(group) = group else { continue };
            for (slot, c) in group.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return Some(highest_in_bucket(g * GROUP + slot).min(self.max).max(self.min));
                }
            }
        }
        Some(self.max)
    }

    pub fn summary(&self) -> Option<Summary> {
        if self.count == 0 {
            return None;
        }
        let at = |q| self.quantile(q).unwrap_or(self.max);
        Some(Summary {
            count: self.count,
            min: self.min,
            mean: self.sum as f64 / self.count as f64,
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p99_9: at(0.999),
            max: self.max,
        })
    }
}

fn index(value: u64) -> usize {
    if value < EXACT {
        return value as usize;
    }
    let exp = 63 - value.leading_zeros(); // >= 8
    let sub = (value >> (exp - SUB_BITS)) - (1 << SUB_BITS); // 0..128
    EXACT as usize + (exp - 8) as usize * (1 << SUB_BITS) + sub as usize
}

fn highest_in_bucket(index: usize) -> u64 {
    if index < EXACT as usize {
        return index as u64;
    }
    let k = (index - EXACT as usize) as u64;
    let exp = 8 + (k >> SUB_BITS) as u32;
    let sub = (k & ((1 << SUB_BITS) - 1)) + (1 << SUB_BITS);
    ((sub + 1) << (exp - SUB_BITS)) - 1
}
