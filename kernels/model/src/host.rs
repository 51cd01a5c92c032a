//! Host memory for running a model as an oracle on host copies.

use bytemuck::Pod;

use crate::{Access, Arg, Borrowed, LaunchMemory, MAX_PARAMS, ModelError, check_disjoint};

/// How many slices a [`HostMemory`] holds.
pub const HOST_BUFFERS: usize = 16;

#[derive(Debug)]
enum Data<'a> {
    Shared(&'a [u8]),
    Exclusive(&'a mut [u8]),
}

#[derive(Debug)]
struct Region<'a> {
    addr: u64,
    data: Data<'a>,
}

impl Region<'_> {
    fn len(&self) -> usize {
        match &self.data {
            Data::Shared(d) => d.len(),
            Data::Exclusive(d) => d.len(),
        }
    }

    fn contains(&self, a: &Access) -> bool {
        self.addr <= a.addr
            && a.addr
                .checked_add(a.bytes as u64)
                .is_some_and(|end| end <= self.addr + self.len() as u64)
    }
}

/// [`LaunchMemory`] over slices the caller lends: a model runs on host copies exactly as SIL
/// CUDA runs it on device memory, so it can be the oracle of a back-to-back test.
///
/// [`HostMemory::read`] and [`HostMemory::write`] lend a slice and return the pointer
/// argument for it (its host address, as in SIL CUDA); an argument may also point inside a
/// lent slice (`Arg::Ptr(base + offset)`). A model may write only into slices lent with
/// [`HostMemory::write`]; every access must lie inside one lent slice.
///
/// ```
/// use orin_exec_kernel_model::{Arg, HostMemory, Launch, ModelError, read};
/// let data = [7u8; 8];
/// let mut mem = HostMemory::new();
/// let Arg::Ptr(base) = mem.read(&data)? else { unreachable!() };
/// let args = [Arg::Ptr(base + 4)];
/// let mut launch = Launch::new(&args, &mut mem);
/// assert_eq!(launch.buffers(read::<u8>(0, 4))?, &[7; 4]);
/// assert!(matches!(
///     launch.buffers(read::<u8>(0, 5)),
///     Err(ModelError::OutOfBounds { index: 0, bytes: 5, .. })
/// ));
/// # Ok::<(), ModelError>(())
/// ```
#[derive(Debug)]
pub struct HostMemory<'a> {
    regions: [Option<Region<'a>>; HOST_BUFFERS],
}

impl Default for HostMemory<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> HostMemory<'a> {
    /// No memory yet.
    pub const fn new() -> Self {
        HostMemory {
            regions: [const { None }; HOST_BUFFERS],
        }
    }

    fn add(&mut self, addr: usize, data: Data<'a>) -> Result<Arg, ModelError> {
        let slot =
            self.regions
                .iter_mut()
                .find(|r| r.is_none())
                .ok_or(ModelError::TooManyBuffers {
                    limit: HOST_BUFFERS,
                })?;
        let addr = addr as u64;
        *slot = Some(Region { addr, data });
        Ok(Arg::Ptr(addr))
    }

    /// Lends `data` for reading; returns the pointer argument for it.
    pub fn read<T: Pod>(&mut self, data: &'a [T]) -> Result<Arg, ModelError> {
        self.add(
            data.as_ptr().addr(),
            Data::Shared(bytemuck::cast_slice(data)),
        )
    }

    /// Lends `data` for reading and writing; returns the pointer argument for it.
    pub fn write<T: Pod>(&mut self, data: &'a mut [T]) -> Result<Arg, ModelError> {
        let addr = data.as_ptr().addr();
        self.add(addr, Data::Exclusive(bytemuck::cast_slice_mut(data)))
    }
}

fn out_of_bounds(a: &Access) -> ModelError {
    ModelError::OutOfBounds {
        index: a.index,
        addr: a.addr,
        bytes: a.bytes,
    }
}

impl LaunchMemory for HostMemory<'_> {
    fn borrow<'m>(
        &'m mut self,
        accesses: &[Access],
        out: &mut [Option<Borrowed<'m>>],
    ) -> Result<(), ModelError> {
        let n = accesses.len();
        if n > MAX_PARAMS || out.len() < n {
            return Err(ModelError::TooManyBuffers { limit: MAX_PARAMS });
        }
        check_disjoint(accesses)?;
        // Which lent slice holds each access.
        let mut region_of = [usize::MAX; MAX_PARAMS];
        for (i, a) in accesses.iter().enumerate() {
            if a.bytes == 0 {
                out[i] = Some(if a.write {
                    Borrowed::Write(&mut [])
                } else {
                    Borrowed::Read(&[])
                });
                continue;
            }
            if !a.addr.is_multiple_of(a.align.max(1) as u64) {
                return Err(ModelError::Misaligned {
                    index: a.index,
                    addr: a.addr,
                    align: a.align,
                });
            }
            let r = self
                .regions
                .iter()
                .position(|r| r.as_ref().is_some_and(|r| r.contains(a)))
                .ok_or(out_of_bounds(a))?;
            if a.write
                && matches!(
                    self.regions[r],
                    Some(Region {
                        data: Data::Shared(_),
                        ..
                    })
                )
            {
                return Err(ModelError::ReadOnly {
                    index: a.index,
                    addr: a.addr,
                    bytes: a.bytes,
                });
            }
            region_of[i] = r;
        }
        for (ri, region) in self.regions.iter_mut().enumerate() {
            let Some(region) = region else { continue };
            // The accesses in this slice, by address.
            let mut order = [0usize; MAX_PARAMS];
            let mut k = 0;
            for (i, &r) in region_of[..n].iter().enumerate() {
                if r == ri {
                    order[k] = i;
                    k += 1;
                }
            }
            let order = &mut order[..k];
            if order.is_empty() {
                continue;
            }
            order.sort_unstable_by_key(|&i| accesses[i].addr);
            let base = region.addr;
            match &mut region.data {
                Data::Shared(d) => {
                    let d: &'m [u8] = d;
                    for &i in order.iter() {
                        let a = &accesses[i];
                        let off = (a.addr - base) as usize;
                        let s = d.get(off..off + a.bytes).ok_or(out_of_bounds(a))?;
                        out[i] = Some(Borrowed::Read(s));
                    }
                }
                Data::Exclusive(d) => split(d, base, order, accesses, out)?,
            }
        }
        Ok(())
    }
}

/// Hands out the accesses `order` (sorted by address) of one writable slice at `base`:
/// overlapping reads share one piece, a write gets a piece of its own (writes overlap
/// nothing: [`check_disjoint`]).
fn split<'m>(
    data: &'m mut [u8],
    base: u64,
    order: &[usize],
    accesses: &[Access],
    out: &mut [Option<Borrowed<'m>>],
) -> Result<(), ModelError> {
    let mut rest = data;
    let mut rest_at = base;
    let mut k = 0;
    while let Some(&first) = order.get(k) {
        let a = &accesses[first];
        let start = a.addr;
        let mut end = a.end();
        // The cluster: every later access that starts before the cluster ends.
        let mut m = k + 1;
        while let Some(&next) = order.get(m) {
            if accesses[next].addr >= end {
                break;
            }
            end = end.max(accesses[next].end());
            m += 1;
        }
        let (_, tail) = core::mem::take(&mut rest)
            .split_at_mut_checked((start - rest_at) as usize)
            .ok_or(out_of_bounds(a))?;
        let (piece, tail) = tail
            .split_at_mut_checked((end - start) as usize)
            .ok_or(out_of_bounds(a))?;
        rest = tail;
        rest_at = end;
        let cluster = &order[k..m];
        match cluster {
            [only] if accesses[*only].write => out[*only] = Some(Borrowed::Write(piece)),
            _ => {
                if let Some(&w) = cluster.iter().find(|&&i| accesses[i].write) {
                    let other = cluster.iter().find(|&&i| i != w).copied().unwrap_or(w);
                    return Err(ModelError::Overlap {
                        index: accesses[w].index,
                        other: accesses[other].index,
                    });
                }
                let shared: &'m [u8] = piece;
                for &i in cluster {
                    let a = &accesses[i];
                    let off = (a.addr - start) as usize;
                    let s = shared.get(off..off + a.bytes).ok_or(out_of_bounds(a))?;
                    out[i] = Some(Borrowed::Read(s));
                }
            }
        }
        k = m;
    }
    Ok(())
}
