//! Pictures of a graph, drawn from the graph itself: Mermaid, Graphviz DOT and
//! a plain-text layer table. Each writes into any [`core::fmt::Write`] (a
//! `String`, a `heapless::String`, a UART writer), allocates nothing and
//! works on target.
//!
//! What every picture shows: each node with its [`Mode`], pools as one group
//! with their `min..=max` bounds, dependencies as arrows from the dependency
//! to its dependent (a `ready` dependency drawn dashed and labelled),
//! `disabled` and detached nodes marked, and with [`Detail::WithState`] each
//! node's current state. With feature `dataflow`, the graph's signals too
//! (`render/flows.rs`): thick labelled arrows from writer to reader, and
//! `writes` / `reads` columns in the layer table.

use core::fmt::{self, Write};

use crate::node::{Mode, TaskNode};
use crate::{Graph, NodeSpec};

#[cfg(feature = "dataflow")]
mod flows;

/// How much a picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// The declaration only: a `disabled` node is marked as declared.
    Declared,
    /// The declaration plus each node's state now (`running`, `busy`,
    /// `paused`, `exited`, `down`; `disabled`/`detached` as the latches read).
    WithState,
}

impl<const N: usize> Graph<N> {
    /// Write the graph as a Mermaid `flowchart` (dependencies point down).
    ///
    // The examples draw a pool: they run when `pool` is on (doc tests see features).
    #[cfg_attr(feature = "pool", doc = "```")]
    #[cfg_attr(not(feature = "pool"), doc = "```ignore")]
    /// use embassy_supervisor::{DeferredShrink, Detail, TaskNode, supervisor_graph};
    /// use embassy_time::Duration;
    /// # async fn work(node: &'static TaskNode) { node.wait_shutdown().await; node.ack_dropped(); }
    /// supervisor_graph! {
    ///     node NET = Terminate, deps: [], task: work;
    ///     node SENSOR = Pause, deps: [], task: work;
    ///     node APP = Terminate, deps: [NET, SENSOR], task: work;
    ///     node LOG = Terminate, deps: [APP], task: work, disabled;
    ///     pool WORKER = [Terminate, OnDemand], deps: [APP], task: work,
    ///         policy: DeferredShrink = DeferredShrink::new(Duration::from_secs(1)), min: 1, max: 2;
    /// }
    /// let mut out = String::new();
    /// GRAPH.write_mermaid(&mut out, Detail::Declared).unwrap();
    /// assert_eq!(out, r#"flowchart TD
    ///     n0["NET<br/>Terminate"]
    ///     n1["SENSOR<br/>Pause"]
    ///     n2["APP<br/>Terminate"]
    ///     n3["LOG<br/>Terminate<br/>disabled"]:::off
    ///     subgraph p0["pool WORKER 1..=2"]
    ///         n4["WORKER[0]<br/>Terminate"]
    ///         n5["WORKER[1]<br/>OnDemand"]
    ///     end
    ///     n0 --> n2
    ///     n1 --> n2
    ///     n2 --> n3
    ///     n2 --> p0
    ///     classDef off stroke-dasharray: 4 4,color:#888
    /// "#);
    /// ```
    pub fn write_mermaid<W: Write>(&self, out: &mut W, detail: Detail) -> fmt::Result {
        out.write_str("flowchart TD\n")?;
        let open = |out: &mut W, p: usize| {
            write!(out, "    subgraph p{p}[\"")?;
            self.pool_label(out, p)?;
            out.write_str("\"]\n")
        };
        self.walk_nodes(out, open, "    end\n", |out, i, n, indent| {
            write!(out, "{indent}n{i}[\"")?;
            escaped(out, n.name, Flavor::Mermaid)?;
            write!(out, "<br/>{:?}", n.mode())?;
            if let Some(marks) = marks(n, detail) {
                write!(out, "<br/>{marks}")?;
            }
            out.write_str("\"]")?;
            if is_off(n, detail) {
                out.write_str(":::off")?;
            }
            out.write_char('\n')
        })?;
        self.edges(|from, to, ready| {
            write!(out, "    ")?;
            from.write(out, "n", "p")?;
            out.write_str(if ready { " -. ready .-> " } else { " --> " })?;
            to.write(out, "n", "p")?;
            out.write_char('\n')
        })?;
        #[cfg(feature = "dataflow")]
        self.mermaid_flows(out)?;
        out.write_str("    classDef off stroke-dasharray: 4 4,color:#888\n")
    }

    /// Write the graph as a Graphviz `digraph` (`dot -Tsvg`): pools are
    /// clusters, a `ready` dependency is dashed, an off node is dashed grey.
    ///
    // The examples draw a pool: they run when `pool` is on (doc tests see features).
    #[cfg_attr(feature = "pool", doc = "```")]
    #[cfg_attr(not(feature = "pool"), doc = "```ignore")]
    /// use embassy_supervisor::{DeferredShrink, Detail, TaskNode, supervisor_graph};
    /// use embassy_time::Duration;
    /// # async fn work(node: &'static TaskNode) { node.wait_shutdown().await; node.ack_dropped(); }
    /// supervisor_graph! {
    ///     node NET = Terminate, deps: [], task: work;
    ///     pool WORKER = [OnDemand, OnDemand], deps: [NET], task: work,
    ///         policy: DeferredShrink = DeferredShrink::new(Duration::from_secs(1)), min: 0, max: 2;
    /// }
    /// let mut out = String::new();
    /// GRAPH.write_dot(&mut out, Detail::Declared).unwrap();
    /// assert_eq!(out, r#"digraph supervisor {
    ///     compound=true;
    ///     node [shape=box, style=rounded];
    ///     n0 [label="NET\nTerminate"];
    ///     subgraph cluster_p0 {
    ///         label="pool WORKER 0..=2";
    ///         n1 [label="WORKER[0]\nOnDemand"];
    ///         n2 [label="WORKER[1]\nOnDemand"];
    ///     }
    ///     n0 -> n1 [lhead=cluster_p0];
    /// }
    /// "#);
    /// ```
    pub fn write_dot<W: Write>(&self, out: &mut W, detail: Detail) -> fmt::Result {
        out.write_str("digraph supervisor {\n    compound=true;\n")?;
        out.write_str("    node [shape=box, style=rounded];\n")?;
        let open = |out: &mut W, p: usize| {
            write!(out, "    subgraph cluster_p{p} {{\n        label=\"")?;
            self.pool_label(out, p)?;
            out.write_str("\";\n")
        };
        self.walk_nodes(out, open, "    }\n", |out, i, n, indent| {
            write!(out, "{indent}n{i} [label=\"")?;
            escaped(out, n.name, Flavor::Dot)?;
            write!(out, "\\n{:?}", n.mode())?;
            if let Some(marks) = marks(n, detail) {
                write!(out, "\\n{marks}")?;
            }
            out.write_char('"')?;
            if is_off(n, detail) {
                out.write_str(", style=\"rounded,dashed\", fontcolor=gray50")?;
            }
            out.write_str("];\n")
        })?;
        self.edges(|from, to, ready| {
            // DOT edges join nodes; `ltail`/`lhead` clip them at a cluster.
            write!(out, "    n{} -> n{}", from.node(), to.node())?;
            let mut attrs = Attrs::new(out);
            if let End::Pool { pool, .. } = from {
                attrs.add(format_args!("ltail=cluster_p{pool}"))?;
            }
            if let End::Pool { pool, .. } = to {
                attrs.add(format_args!("lhead=cluster_p{pool}"))?;
            }
            if ready {
                attrs.add(format_args!("style=dashed, label=\"ready\""))?;
            }
            attrs.finish()?;
            out.write_str(";\n")
        })?;
        #[cfg(feature = "dataflow")]
        self.dot_flows(out)?;
        out.write_str("}\n")
    }

    /// Write the graph as a text table, one row per node (a pool is one row),
    /// grouped in layers by dependency order: layer 0 depends on nothing,
    /// layer k on something in layer k-1.
    ///
    // The examples draw a pool: they run when `pool` is on (doc tests see features).
    #[cfg_attr(feature = "pool", doc = "```")]
    #[cfg_attr(not(feature = "pool"), doc = "```ignore")]
    /// use embassy_supervisor::{DeferredShrink, Detail, TaskNode, supervisor_graph};
    /// use embassy_time::Duration;
    /// # async fn work(node: &'static TaskNode) { node.wait_shutdown().await; node.ack_dropped(); }
    /// supervisor_graph! {
    ///     node NET = Terminate, deps: [], task: work;
    ///     node SENSOR = Pause, deps: [], task: work;
    ///     node APP = Terminate, deps: [NET, SENSOR], task: work;
    ///     pool WORKER = [Terminate, OnDemand, OnDemand], deps: [APP], task: work,
    ///         policy: DeferredShrink = DeferredShrink::new(Duration::from_secs(1)), min: 1, max: 3;
    /// }
    /// let mut out = String::new();
    /// GRAPH.write_layers(&mut out, Detail::Declared).unwrap();
    /// assert_eq!(out, "\
    /// layer 0  NET           Terminate
    ///          SENSOR        Pause
    /// layer 1  APP           Terminate  after NET, SENSOR
    /// layer 2  WORKER[0..3]  Terminate  after APP  pool 1..=3, members 1..3 OnDemand
    /// ");
    /// ```
    pub fn write_layers<W: Write>(&self, out: &mut W, detail: Detail) -> fmt::Result {
        let layer = self.layers();
        let mut width = 0;
        for i in 0..N {
            if let Some(n) = self.node(i) {
                width = width.max(self.row_name_len(n, i));
            }
        }
        let top = (0..N).filter_map(|i| layer[i]).max().unwrap_or(0);
        for l in 0..=top {
            let mut first_in_layer = true;
            for &slot in &self.order {
                let i = slot as usize;
                let Some(n) = self.node(i).filter(|_| layer[i] == Some(l)) else {
                    continue;
                };
                let pool = self.pool_of(n);
                if pool.is_some_and(|p| self.pool_first(p) != i) {
                    continue; // a pool is one row, at its first member
                }
                if first_in_layer {
                    write!(out, "layer {l:<3}")?;
                    first_in_layer = false;
                } else {
                    out.write_str("         ")?;
                }
                match pool {
                    Some(p) => write!(out, "{}[0..{}]", pool_base(n.name), self.pool_len(p))?,
                    None => out.write_str(n.name)?,
                }
                let mode = mode_name(n.mode());
                spaces(out, width - self.row_name_len(n, i) + 2)?;
                out.write_str(mode)?;
                let mut cols = Columns {
                    out,
                    pad: 9 - mode.len(),
                };
                self.write_row_tail(&mut cols, i, pool, detail)?;
                cols.out.write_char('\n')?;
            }
        }
        Ok(())
    }

    /// The width of a layer row's name: the node's, or `NAME[0..K]`.
    fn row_name_len(&self, n: &TaskNode, i: usize) -> usize {
        match self.pool_of(n) {
            Some(p) if self.pool_first(p) == i => {
                pool_base(n.name).len() + 5 + digits(self.pool_len(p))
            }
            Some(_) => 0,
            None => n.name.len(),
        }
    }

    /// A layer row after its mode: dependencies, pool bounds, marks.
    fn write_row_tail<W: Write>(
        &self,
        cols: &mut Columns<'_, W>,
        i: usize,
        pool: Option<usize>,
        detail: Detail,
    ) -> fmt::Result {
        let deps = self.deps[i];
        let mut listed = 0;
        for (k, &d) in deps.iter().enumerate() {
            let Some(dn) = self.node(d as usize) else {
                continue;
            };
            let dep_pool = self.pool_of(dn);
            // A dependency on a pool lists the pool once.
            if dep_pool.is_some() && k > 0 && self.pool_of_slot(deps[k - 1] as usize) == dep_pool {
                continue;
            }
            if listed == 0 {
                cols.column()?;
                cols.out.write_str("after ")?;
            } else {
                cols.out.write_str(", ")?;
            }
            listed += 1;
            if dep_pool.is_some() {
                write!(cols.out, "pool {}", pool_base(dn.name))?;
            } else {
                cols.out.write_str(dn.name)?;
            }
            if self.is_ready_dep(i, d) {
                cols.out.write_str(" (ready)")?;
            }
        }
        #[cfg(feature = "dataflow")]
        self.write_row_flows(cols, i)?;
        let members = match pool {
            Some(p) => {
                let (min, max) = self.pool_bounds(p);
                cols.column()?;
                write!(cols.out, "pool {min}..={max}")?;
                self.write_member_modes(cols.out, p)?;
                self.pool_first(p)..self.pool_first(p) + self.pool_len(p)
            }
            None => i..i + 1,
        };
        for m in members {
            let Some(n) = self.node(m) else { continue };
            if let Some(marks) = marks(n, detail) {
                cols.column()?;
                if pool.is_some() {
                    write!(cols.out, "{}: ", n.name)?;
                }
                cols.out.write_str(marks)?;
            }
        }
        Ok(())
    }

    /// Pool members whose mode differs from the first member's, as runs
    /// (`, members 1..3 OnDemand`).
    fn write_member_modes<W: Write>(&self, out: &mut W, p: usize) -> fmt::Result {
        let first = self.pool_first(p);
        let mode = |k: usize| self.node(first + k).map(|n| n.mode());
        let lead = mode(0);
        let len = self.pool_len(p);
        let mut k = 1;
        while k < len {
            let this = mode(k);
            if this == lead {
                k += 1;
                continue;
            }
            let start = k;
            while k < len && mode(k) == this {
                k += 1;
            }
            if let Some(m) = this {
                write!(out, ", members {start}..{k} {}", mode_name(m))?;
            }
        }
        Ok(())
    }

    /// Per slot, its layer: 0 for no dependencies, else one more than its
    /// deepest dependency (`None`: an empty slot).
    fn layers(&self) -> [Option<usize>; N] {
        let mut layer = [None; N];
        for &slot in &self.order {
            let i = slot as usize;
            if self.node(i).is_none() {
                continue;
            }
            let deepest = self.deps[i].iter().filter_map(|&d| layer[d as usize]).max();
            layer[i] = Some(deepest.map_or(0, |l| l + 1));
        }
        layer
    }

    /// Every dependency arrow once: into a pool (from its first member's
    /// deps), out of a pool (once per dependent), node to node otherwise.
    /// Every node in slot order, for both formats: a pool's members are
    /// consecutive slots, so a pool group is opened (`open`) before its
    /// first member and closed (`close`) after its last; `node` writes one
    /// node at the indent its nesting needs.
    fn walk_nodes<W: Write>(
        &self,
        out: &mut W,
        open: impl Fn(&mut W, usize) -> fmt::Result,
        close: &str,
        mut node: impl FnMut(&mut W, usize, &TaskNode, &str) -> fmt::Result,
    ) -> fmt::Result {
        let mut pool = None;
        for i in 0..N {
            let Some(n) = self.node(i) else { continue };
            let p = self.pool_of(n);
            if p != pool {
                if pool.is_some() {
                    out.write_str(close)?;
                }
                if let Some(p) = p {
                    open(out, p)?;
                }
                pool = p;
            }
            let indent = if p.is_some() { "        " } else { "    " };
            node(out, i, n, indent)?;
        }
        if pool.is_some() {
            out.write_str(close)?;
        }
        Ok(())
    }

    fn edges(&self, mut edge: impl FnMut(End, End, bool) -> fmt::Result) -> fmt::Result {
        for i in 0..N {
            let Some(n) = self.node(i) else { continue };
            let to = match self.pool_of(n) {
                Some(p) if self.pool_first(p) != i => continue,
                Some(p) => End::Pool { pool: p, first: i },
                None => End::Node(i),
            };
            let deps = self.deps[i];
            for (k, &d) in deps.iter().enumerate() {
                let d = d as usize;
                let from = match self.pool_of_slot(d) {
                    Some(p) if k > 0 && self.pool_of_slot(deps[k - 1] as usize) == Some(p) => {
                        continue;
                    }
                    Some(p) => End::Pool {
                        pool: p,
                        first: self.pool_first(p),
                    },
                    None => End::Node(d),
                };
                edge(from, to, self.is_ready_dep(i, d as u8))?;
            }
        }
        Ok(())
    }

    fn is_ready_dep(&self, _i: usize, _d: u8) -> bool {
        #[cfg(feature = "readiness")]
        return self.ready_deps[_i].contains(&_d);
        #[cfg(not(feature = "readiness"))]
        false
    }

    fn pool_of_slot(&self, i: usize) -> Option<usize> {
        self.node(i).and_then(|n| self.pool_of(n))
    }

    fn pool_of(&self, _n: &NodeSpec) -> Option<usize> {
        #[cfg(feature = "pool")]
        return _n.pool.map(usize::from).filter(|&p| p < self.pools.len());
        #[cfg(not(feature = "pool"))]
        None
    }

    fn pool_first(&self, _p: usize) -> usize {
        #[cfg(feature = "pool")]
        return self.pools[_p].slots().start;
        #[cfg(not(feature = "pool"))]
        0
    }

    fn pool_len(&self, _p: usize) -> usize {
        #[cfg(feature = "pool")]
        return self.pools[_p].slots().len();
        #[cfg(not(feature = "pool"))]
        0
    }

    fn pool_bounds(&self, _p: usize) -> (u8, u8) {
        #[cfg(feature = "pool")]
        return self.pools[_p].bounds();
        #[cfg(not(feature = "pool"))]
        (0, 0)
    }

    fn pool_label<W: Write>(&self, out: &mut W, p: usize) -> fmt::Result {
        let name = self
            .node(self.pool_first(p))
            .map_or("", |n| pool_base(n.name));
        let (min, max) = self.pool_bounds(p);
        write!(out, "pool {name} {min}..={max}")
    }
}

/// One end of an arrow: a node, or a pool (drawn as its group; DOT anchors
/// the arrow at the pool's first member).
#[derive(Clone, Copy)]
enum End {
    Node(usize),
    Pool { pool: usize, first: usize },
}

impl End {
    fn node(self) -> usize {
        match self {
            End::Node(i) | End::Pool { first: i, .. } => i,
        }
    }

    fn write<W: Write>(self, out: &mut W, node: &str, pool: &str) -> fmt::Result {
        match self {
            End::Node(i) => write!(out, "{node}{i}"),
            End::Pool { pool: p, .. } => write!(out, "{pool}{p}"),
        }
    }
}

/// The columns after a layer row's mode, two spaces apart; the first also
/// pads the mode to its column width (no trailing spaces on a bare row).
struct Columns<'a, W: Write> {
    out: &'a mut W,
    pad: usize,
}

impl<W: Write> Columns<'_, W> {
    fn column(&mut self) -> fmt::Result {
        spaces(self.out, self.pad + 2)?;
        self.pad = 0;
        Ok(())
    }
}

fn spaces<W: Write>(out: &mut W, n: usize) -> fmt::Result {
    for _ in 0..n {
        out.write_char(' ')?;
    }
    Ok(())
}

/// `[a, b]` DOT attribute lists built one attribute at a time.
struct Attrs<'a, W: Write> {
    out: &'a mut W,
    any: bool,
}

impl<'a, W: Write> Attrs<'a, W> {
    fn new(out: &'a mut W) -> Self {
        Self { out, any: false }
    }

    fn add(&mut self, attr: fmt::Arguments<'_>) -> fmt::Result {
        self.out.write_str(if self.any { ", " } else { " [" })?;
        self.any = true;
        self.out.write_fmt(attr)
    }

    fn finish(self) -> fmt::Result {
        if self.any {
            self.out.write_char(']')
        } else {
            Ok(())
        }
    }
}

/// The words a picture adds under a node's mode, if any.
fn marks(n: &TaskNode, detail: Detail) -> Option<&'static str> {
    match detail {
        Detail::Declared => n.spec().disabled.then_some("disabled"),
        Detail::WithState => Some(state(n)),
    }
}

/// Drawn as "off" (dashed, grey): disabled, or (with state) detached.
fn is_off(n: &TaskNode, detail: Detail) -> bool {
    match detail {
        Detail::Declared => n.spec().disabled,
        Detail::WithState => n.is_disabled() || n.is_detached(),
    }
}

/// One word for a node's state now.
fn state(n: &TaskNode) -> &'static str {
    if n.is_detached() {
        "detached"
    } else if n.is_running() && n.is_busy() {
        "busy"
    } else if n.is_running() {
        "running"
    } else if n.is_disabled() {
        "disabled"
    } else if n.is_parked() {
        "paused"
    } else if n.has_exited() {
        "exited"
    } else {
        "down"
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Terminate => "Terminate",
        Mode::Pause => "Pause",
        Mode::OnDemand => "OnDemand",
    }
}

/// A pool member's name without its `[i]` suffix.
fn pool_base(name: &str) -> &str {
    name.split_once('[').map_or(name, |(base, _)| base)
}

fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

#[derive(Clone, Copy)]
enum Flavor {
    Mermaid,
    Dot,
}

/// A name inside a quoted label: Mermaid takes `"` as an entity, DOT as `\"`.
fn escaped<W: Write>(out: &mut W, s: &str, flavor: Flavor) -> fmt::Result {
    for c in s.chars() {
        match (flavor, c) {
            (Flavor::Mermaid, '"') => out.write_str("#quot;")?,
            (Flavor::Dot, '"' | '\\') => {
                out.write_char('\\')?;
                out.write_char(c)?;
            }
            _ => out.write_char(c)?,
        }
    }
    Ok(())
}
