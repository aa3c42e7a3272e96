//! An `embassy-net-driver` for the SMSC LAN9118 Ethernet controller that QEMU
//! attaches to the mps2-an505 at `0x4200_0000`.
//!
//! The chip is driven through its two FIFOs (PIO, no DMA): a frame is sent by
//! writing two command words and the frame's words into the TX data FIFO, and
//! received by popping one status word (which carries the length) and then the
//! frame's words from the RX data FIFO. The interrupt line (RX status FIFO
//! level) only wakes the network stack; the stack itself reads the FIFOs.
//!
//! All MMIO `unsafe` of the example lives in [`Regs`]; everything above it is
//! safe code.

use core::task::Context;

use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use embassy_sync::waitqueue::AtomicWaker;

/// Frame buffer size: the largest Ethernet frame (1514 B) plus the 4-byte FCS
/// the chip leaves at the end of a received frame, rounded up to words.
const FRAME: usize = 1520;
const MTU: usize = 1514;

// Register offsets (SMSC LAN9118 datasheet, "System Control and Status
// Registers").
const RX_DATA_FIFO: usize = 0x00;
const TX_DATA_FIFO: usize = 0x20;
const RX_STATUS_FIFO: usize = 0x40;
const TX_STATUS_FIFO: usize = 0x48;
const ID_REV: usize = 0x50;
const IRQ_CFG: usize = 0x54;
const INT_STS: usize = 0x58;
const INT_EN: usize = 0x5C;
const BYTE_TEST: usize = 0x64;
const TX_CFG: usize = 0x70;
const HW_CFG: usize = 0x74;
const RX_DP_CTRL: usize = 0x78;
const RX_FIFO_INF: usize = 0x7C;
const TX_FIFO_INF: usize = 0x80;
const PMT_CTRL: usize = 0x84;
const MAC_CSR_CMD: usize = 0xA4;
const MAC_CSR_DATA: usize = 0xA8;

// MAC control and status registers, reached through MAC_CSR_CMD/DATA.
const MAC_CR: u8 = 1;
const ADDRH: u8 = 2;
const ADDRL: u8 = 3;
const MII_ACC: u8 = 6;
const MII_DATA: u8 = 7;

const MAC_CR_RXEN: u32 = 1 << 2;
const MAC_CR_TXEN: u32 = 1 << 3;
const CSR_BUSY: u32 = 1 << 31;
const CSR_READ: u32 = 1 << 30;
const HW_CFG_SRST: u32 = 1;
const PMT_READY: u32 = 1;
const TX_CFG_TX_ON: u32 = 1 << 1;
/// TX status FIFO may overrun: nobody needs the per-frame TX status.
const TX_CFG_TXSAO: u32 = 1 << 2;
const RX_FFWD: u32 = 1 << 31;
/// INT_STS/INT_EN: RX status FIFO level reached (a frame is waiting).
const INT_RSFL: u32 = 1 << 3;
const IRQ_CFG_EN: u32 = 1 << 8;
/// Push-pull output, active high: what QEMU's model drives either way.
const IRQ_CFG_POL_TYPE: u32 = (1 << 4) | 1;
const RX_STS_ERROR: u32 = 1 << 15;
/// PHY basic status register: link up.
const PHY_BSR: u32 = 1;
const BSR_LINK: u32 = 1 << 2;
/// MII_ACC: PHY address 1, busy, register in bits 10:6.
const MII_PHY1: u32 = 1 << 11;
const MII_BUSY: u32 = 1;

const EXPECTED_ID: u32 = 0x0118;
/// BYTE_TEST reads this pattern when the bus is wired correctly.
const BYTE_TEST_PATTERN: u32 = 0x8765_4321;

/// Why the chip could not be brought up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitError {
    /// ID_REV does not name a LAN9118 (nothing, or another chip, at `base`).
    NotFound(u32),
    /// BYTE_TEST did not read its fixed pattern.
    BusFault(u32),
    /// A reset or a MAC register access did not complete.
    Timeout,
}

/// The chip's registers at a fixed base address.
struct Regs {
    base: usize,
}

impl Regs {
    fn read(&self, off: usize) -> u32 {
        // Safety: `base` is the LAN9118's register window (checked in
        // `Lan9118::new` through ID_REV before anything else is touched);
        // every `off` used is a register offset inside that 256-byte window,
        // word aligned. Reads of the FIFO ports have side effects (they pop),
        // which is why only the owner of the `Lan9118` reads them.
        unsafe { core::ptr::read_volatile((self.base + off) as *const u32) }
    }

    fn write(&self, off: usize, value: u32) {
        // Safety: as in `read`: an aligned register of the chip's window.
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u32, value) }
    }

    /// Wait (bounded) until `off & mask` reads as `want`.
    fn wait(&self, off: usize, mask: u32, want: u32) -> Result<(), InitError> {
        for _ in 0..100_000 {
            if self.read(off) & mask == want {
                return Ok(());
            }
        }
        Err(InitError::Timeout)
    }

    fn mac_read(&self, reg: u8) -> Result<u32, InitError> {
        self.wait(MAC_CSR_CMD, CSR_BUSY, 0)?;
        self.write(MAC_CSR_CMD, CSR_BUSY | CSR_READ | reg as u32);
        self.wait(MAC_CSR_CMD, CSR_BUSY, 0)?;
        Ok(self.read(MAC_CSR_DATA))
    }

    fn mac_write(&self, reg: u8, value: u32) -> Result<(), InitError> {
        self.wait(MAC_CSR_CMD, CSR_BUSY, 0)?;
        self.write(MAC_CSR_DATA, value);
        self.write(MAC_CSR_CMD, CSR_BUSY | reg as u32);
        self.wait(MAC_CSR_CMD, CSR_BUSY, 0)
    }

    fn phy_read(&self, reg: u32) -> Result<u32, InitError> {
        self.mac_write(MII_ACC, MII_PHY1 | (reg << 6) | MII_BUSY)?;
        for _ in 0..100_000 {
            if self.mac_read(MII_ACC)? & MII_BUSY == 0 {
                return self.mac_read(MII_DATA);
            }
        }
        Err(InitError::Timeout)
    }
}

/// Woken from the chip's interrupt: a frame arrived.
static RX_WAKER: AtomicWaker = AtomicWaker::new();

/// The chip and its TX frame buffer: what a TX token needs.
pub struct Chip {
    regs: Regs,
    mac: [u8; 6],
    tx: [u8; FRAME],
}

/// The driver as embassy-net sees it. The RX buffer sits beside the chip so
/// an RX token and a TX token can borrow the two at once.
pub struct Lan9118 {
    chip: Chip,
    rx: [u8; FRAME],
}

impl Lan9118 {
    /// Reset the chip at `base`, read its MAC address, enable RX/TX and the
    /// RX interrupt.
    ///
    /// # Safety
    ///
    /// `base` must be the register window of a LAN9118 that nothing else
    /// accesses (except [`on_interrupt`]), for the life of the driver.
    pub unsafe fn new(base: usize) -> Result<Self, InitError> {
        let regs = Regs { base };
        let id = regs.read(ID_REV);
        if id >> 16 != EXPECTED_ID {
            return Err(InitError::NotFound(id));
        }
        let test = regs.read(BYTE_TEST);
        if test != BYTE_TEST_PATTERN {
            return Err(InitError::BusFault(test));
        }
        regs.write(HW_CFG, HW_CFG_SRST);
        regs.wait(HW_CFG, HW_CFG_SRST, 0)?;
        regs.wait(PMT_CTRL, PMT_READY, PMT_READY)?;
        let lo = regs.mac_read(ADDRL)?.to_le_bytes();
        let hi = regs.mac_read(ADDRH)?.to_le_bytes();
        let mac = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]];
        regs.write(TX_CFG, TX_CFG_TX_ON | TX_CFG_TXSAO);
        let cr = regs.mac_read(MAC_CR)?;
        regs.mac_write(MAC_CR, cr | MAC_CR_RXEN | MAC_CR_TXEN)?;
        regs.write(INT_STS, u32::MAX);
        regs.write(INT_EN, INT_RSFL);
        regs.write(IRQ_CFG, IRQ_CFG_EN | IRQ_CFG_POL_TYPE);
        Ok(Self {
            chip: Chip {
                regs,
                mac,
                tx: [0; FRAME],
            },
            rx: [0; FRAME],
        })
    }

    /// The MAC address QEMU assigned (`-nic ...,mac=`; 52:54:00:12:34:56 by default).
    pub fn mac(&self) -> [u8; 6] {
        self.chip.mac
    }
}

impl Chip {
    /// Frames waiting in the RX status FIFO.
    fn rx_pending(&self) -> u32 {
        (self.regs.read(RX_FIFO_INF) >> 16) & 0xFF
    }

    /// Pop one frame into `rx`; its length without the FCS, or `None` for a
    /// frame the chip flagged bad (dropped here).
    fn pop_frame(&self, rx: &mut [u8; FRAME]) -> Option<usize> {
        let status = self.regs.read(RX_STATUS_FIFO);
        let len = ((status >> 16) & 0x3FFF) as usize;
        let words = len.div_ceil(4);
        if status & RX_STS_ERROR != 0 || !(4..=FRAME).contains(&len) {
            self.discard(words);
            return None;
        }
        for chunk in rx.chunks_exact_mut(4).take(words) {
            // The FIFO hands the frame's bytes in order, little endian.
            chunk.copy_from_slice(&self.regs.read(RX_DATA_FIFO).to_le_bytes());
        }
        Some(len - 4)
    }

    /// Drop a frame of `words` words from the RX data FIFO.
    fn discard(&self, words: usize) {
        if words >= 4 {
            self.regs.write(RX_DP_CTRL, RX_FFWD);
            let _ = self.regs.wait(RX_DP_CTRL, RX_FFWD, 0);
        } else {
            for _ in 0..words {
                let _ = self.regs.read(RX_DATA_FIFO);
            }
        }
    }

    fn tx_free(&self) -> usize {
        (self.regs.read(TX_FIFO_INF) & 0xFFFF) as usize
    }

    /// Push the first `len` bytes of `self.tx` as one frame.
    fn push_frame(&self, len: usize) {
        // Command A: first and last segment, buffer size; command B: tag
        // (the length, a debugging aid) and packet length.
        self.regs
            .write(TX_DATA_FIFO, (1 << 13) | (1 << 12) | len as u32);
        self.regs
            .write(TX_DATA_FIFO, ((len as u32) << 16) | len as u32);
        for chunk in self.tx[..len.div_ceil(4) * 4].chunks_exact(4) {
            let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.regs.write(TX_DATA_FIFO, w);
        }
        // Nobody needs the TX status (TXSAO lets it overrun); drain it so the
        // FIFO stays short.
        while (self.regs.read(TX_FIFO_INF) >> 16) & 0xFF != 0 {
            let _ = self.regs.read(TX_STATUS_FIFO);
        }
    }

    fn link_up(&self) -> bool {
        self.regs
            .phy_read(PHY_BSR)
            .is_ok_and(|bsr| bsr & BSR_LINK != 0)
    }
}

/// Call from the chip's interrupt handler: masks the RX interrupt (the
/// driver re-enables it when the FIFO is empty) and wakes the stack.
pub fn on_interrupt(base: usize) {
    let regs = Regs { base };
    regs.write(INT_EN, 0);
    regs.write(INT_STS, INT_RSFL);
    RX_WAKER.wake();
}

/// The received frame handed to the stack.
pub struct RxToken<'a> {
    frame: &'a mut [u8; FRAME],
    len: usize,
}

/// Room for one frame to send.
pub struct TxToken<'a> {
    chip: &'a mut Chip,
}

impl embassy_net_driver::RxToken for RxToken<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, f: F) -> R {
        f(&mut self.frame[..self.len])
    }
}

impl embassy_net_driver::TxToken for TxToken<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let len = len.min(MTU);
        let r = f(&mut self.chip.tx[..len]);
        self.chip.push_frame(len);
        r
    }
}

impl embassy_net_driver::Driver for Lan9118 {
    type RxToken<'a> = RxToken<'a>;
    type TxToken<'a> = TxToken<'a>;

    fn receive(&mut self, cx: &mut Context) -> Option<(RxToken<'_>, TxToken<'_>)> {
        loop {
            if self.chip.rx_pending() == 0 {
                // Register before re-enabling the interrupt, so a frame that
                // lands in between still wakes us.
                RX_WAKER.register(cx.waker());
                self.chip.regs.write(INT_EN, INT_RSFL);
                if self.chip.rx_pending() == 0 {
                    return None;
                }
            }
            if let Some(len) = self.chip.pop_frame(&mut self.rx) {
                return Some((
                    RxToken {
                        frame: &mut self.rx,
                        len,
                    },
                    TxToken {
                        chip: &mut self.chip,
                    },
                ));
            }
        }
    }

    fn transmit(&mut self, cx: &mut Context) -> Option<TxToken<'_>> {
        // Command words plus a full frame must fit.
        if self.chip.tx_free() < FRAME + 8 {
            // QEMU's model sends a frame the moment it is written, so a full
            // FIFO does not last: ask to be polled again.
            cx.waker().wake_by_ref();
            return None;
        }
        Some(TxToken {
            chip: &mut self.chip,
        })
    }

    fn link_state(&mut self, _cx: &mut Context) -> LinkState {
        if self.chip.link_up() {
            LinkState::Up
        } else {
            LinkState::Down
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = MTU;
        caps.max_burst_size = Some(1);
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.chip.mac)
    }
}
