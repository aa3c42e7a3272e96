//! The dataflow in the pictures (feature `dataflow`): one thick, labelled
//! arrow per signal from each writer to each reader, drawn apart from the
//! `deps:` arrows (which order spawns). A side outside the graph (`extern`)
//! is drawn as an `outside` node; a side nobody has (possible only in a
//! hand-built graph: the macro refuses it) as a red `no writer` / `no
//! reader` node. A graph without dataflow draws exactly what it drew before.

use core::fmt::{self, Write};

use super::{Columns, End, Flavor, escaped};
use crate::Graph;
use crate::flow::Flow;

/// One end of a data arrow.
#[derive(Clone, Copy)]
enum Side {
    /// A node or pool of the graph.
    In(End),
    /// Code outside the graph (`extern`), for flow `f`, as writer or reader.
    Outside { f: usize, writer: bool },
    /// Nobody: a one-sided signal, for flow `f`.
    Missing { f: usize, writer: bool },
}

impl Side {
    fn id<W: Write>(self, out: &mut W, pool: &str) -> fmt::Result {
        match self {
            Side::In(end) => end.write(out, "n", pool),
            Side::Outside { f, writer } => write!(out, "x{f}{}", if writer { 'w' } else { 'r' }),
            Side::Missing { f, writer } => write!(out, "u{f}{}", if writer { 'w' } else { 'r' }),
        }
    }

    /// The label of a node that is not in the graph (`None` for one that is).
    fn label(self) -> Option<&'static str> {
        match self {
            Side::In(_) => None,
            Side::Outside { .. } => Some("outside"),
            Side::Missing { writer: true, .. } => Some("no writer"),
            Side::Missing { writer: false, .. } => Some("no reader"),
        }
    }

    fn is_missing(self) -> bool {
        matches!(self, Side::Missing { .. })
    }
}

/// What [`Graph::flow_arrows`] asks a picture to draw.
enum Draw<'f> {
    /// A node that is not in the graph (an outside or missing side), once
    /// per flow, before its arrows.
    Extra(Side),
    Arrow(Side, Side, &'f Flow),
}

impl<const N: usize> Graph<N> {
    /// The data arrows and their extra nodes, for `write_mermaid`.
    pub(super) fn mermaid_flows<W: Write>(&self, out: &mut W) -> fmt::Result {
        let (mut outside, mut missing) = (false, false);
        self.flow_arrows(|draw| {
            let (from, to, flow) = match draw {
                Draw::Extra(side) => {
                    out.write_str("    ")?;
                    side.id(out, "p")?;
                    let class = if side.is_missing() {
                        "oneside"
                    } else {
                        "outside"
                    };
                    let label = side.label().unwrap_or_default();
                    outside |= !side.is_missing();
                    missing |= side.is_missing();
                    return writeln!(out, "([\"{label}\"]):::{class}");
                }
                Draw::Arrow(from, to, flow) => (from, to, flow),
            };
            out.write_str("    ")?;
            from.id(out, "p")?;
            let arrow = if from.is_missing() || to.is_missing() {
                "-.->"
            } else {
                "==>"
            };
            write!(out, " {arrow}|\"")?;
            escaped(out, flow.short_name(), Flavor::Mermaid)?;
            out.write_str("\"| ")?;
            to.id(out, "p")?;
            out.write_char('\n')
        })?;
        if outside {
            out.write_str("    classDef outside stroke-dasharray: 2 2,color:#555\n")?;
        }
        if missing {
            out.write_str("    classDef oneside stroke:#c00,color:#c00\n")?;
        }
        Ok(())
    }

    /// The data arrows and their extra nodes, for `write_dot`: bold blue,
    /// labelled, and left out of the layout's ranking (`constraint=false`),
    /// so a data cycle does not bend the dependency picture.
    pub(super) fn dot_flows<W: Write>(&self, out: &mut W) -> fmt::Result {
        self.flow_arrows(|draw| {
            let (from, to, flow) = match draw {
                Draw::Extra(side) => {
                    out.write_str("    ")?;
                    side.id(out, "n")?;
                    let color = if side.is_missing() { "red" } else { "gray40" };
                    let label = side.label().unwrap_or_default();
                    return writeln!(
                        out,
                        " [label=\"{label}\", shape=plaintext, fontcolor={color}];"
                    );
                }
                Draw::Arrow(from, to, flow) => (from, to, flow),
            };
            out.write_str("    ")?;
            dot_id(out, from)?;
            out.write_str(" -> ")?;
            dot_id(out, to)?;
            let style = if from.is_missing() || to.is_missing() {
                "dashed, color=red"
            } else {
                "bold, color=blue"
            };
            write!(out, " [style={style}, label=\"")?;
            escaped(out, flow.short_name(), Flavor::Dot)?;
            out.write_str("\", constraint=false")?;
            if let Side::In(End::Pool { pool, .. }) = from {
                write!(out, ", ltail=cluster_p{pool}")?;
            }
            if let Side::In(End::Pool { pool, .. }) = to {
                write!(out, ", lhead=cluster_p{pool}")?;
            }
            out.write_str("];\n")
        })
    }

    /// A layer row's dataflow columns: `writes A, B` and `reads C` (a pool's
    /// row is its first member's, whose entries every member shares).
    pub(super) fn write_row_flows<W: Write>(
        &self,
        cols: &mut Columns<'_, W>,
        i: usize,
    ) -> fmt::Result {
        for (verb, write) in [("writes", true), ("reads", false)] {
            let mut any = false;
            for flow in self.flows {
                let on_side = if write {
                    flow.is_written_by(i)
                } else {
                    flow.is_read_by(i)
                };
                if !on_side {
                    continue;
                }
                if any {
                    cols.out.write_str(", ")?;
                } else {
                    cols.column()?;
                    write!(cols.out, "{verb} ")?;
                    any = true;
                }
                cols.out.write_str(flow.short_name())?;
            }
        }
        Ok(())
    }

    /// Every data arrow once: per signal, its extra nodes, then each writer
    /// to each reader, a pool as one end (at its first member), a missing
    /// or outside side as its own end.
    fn flow_arrows(&self, mut draw: impl FnMut(Draw<'_>) -> fmt::Result) -> fmt::Result {
        for (f, flow) in self.flows.iter().enumerate() {
            let writers = || self.flow_ends(flow.writers, flow.is_written_outside(), f, true);
            let readers = || self.flow_ends(flow.readers, flow.is_read_outside(), f, false);
            for side in writers().chain(readers()) {
                if side.label().is_some() {
                    draw(Draw::Extra(side))?;
                }
            }
            for from in writers() {
                for to in readers() {
                    draw(Draw::Arrow(from, to, flow))?;
                }
            }
        }
        Ok(())
    }

    /// One side of a flow as arrow ends: its slots (a pool once, a removed
    /// slot not at all), then `outside` if marked, or `Missing` if empty.
    fn flow_ends<'a>(
        &'a self,
        slots: &'static [u8],
        outside: bool,
        f: usize,
        writer: bool,
    ) -> impl Iterator<Item = Side> + 'a {
        let in_graph = slots
            .iter()
            .filter_map(move |&s| self.arrow_end(usize::from(s)));
        let empty = !slots.iter().any(|&s| self.node(usize::from(s)).is_some());
        let extra = if outside {
            Some(Side::Outside { f, writer })
        } else if empty {
            Some(Side::Missing { f, writer })
        } else {
            None
        };
        in_graph.map(Side::In).chain(extra)
    }

    /// Slot `i` as an arrow end: a node, or its pool at its first member
    /// (`None` for the other members and for removed slots).
    fn arrow_end(&self, i: usize) -> Option<End> {
        let n = self.node(i)?;
        match self.pool_of(n) {
            Some(p) if self.pool_first(p) == i => Some(End::Pool { pool: p, first: i }),
            Some(_) => None,
            None => Some(End::Node(i)),
        }
    }
}

/// A DOT arrow end: a node by its slot (a pool at its first member), an
/// extra node by its id.
fn dot_id<W: Write>(out: &mut W, side: Side) -> fmt::Result {
    match side {
        Side::In(end) => write!(out, "n{}", end.node()),
        other => other.id(out, "n"),
    }
}
