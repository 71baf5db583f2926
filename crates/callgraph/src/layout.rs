//! A layered (Sugiyama-style) layout of a directed graph with cycles:
//!
//! 1. cycles are broken by a depth-first search from the sources (callers
//!    first, in the order given), reversing the edges that close a cycle;
//! 2. every node gets the layer of its longest path from a source;
//! 3. edges spanning several layers get a dummy node in each layer between;
//! 4. each layer is ordered by barycentres, sweeping down and up and keeping
//!    the order with the fewest crossings (counted exactly, by inversions),
//!    until two sweeps in a row remove none;
//! 5. nodes are placed left to right in that order, then pulled towards the
//!    centre of their neighbours without overlapping or changing order;
//! 6. edges run from the bottom of the caller to the top of the callee
//!    through their dummies (a reversed edge from the top of its caller to
//!    the bottom of its callee), self-calls as a loop on the right.

/// Space between layers and between neighbours in a layer (px).
pub const LAYER_GAP: f64 = 56.0;
/// Horizontal space between neighbours in a layer (px).
pub const NODE_GAP: f64 = 24.0;
/// Margin around the drawing (px).
pub const MARGIN: f64 = 16.0;
/// Width of the slot a long edge takes in a layer it crosses (px).
const DUMMY_WIDTH: f64 = 12.0;
/// Most ordering sweeps (each down and up); they stop early after two
/// sweeps that remove no crossing.
const SWEEPS: usize = 8;

/// Where one node is drawn: its box, top-left corner and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeBox {
    /// Left (px).
    pub x: f64,
    /// Top (px).
    pub y: f64,
    /// Width (px).
    pub w: f64,
    /// Height (px).
    pub h: f64,
    /// Layer, 0 at the top.
    pub layer: usize,
}

impl NodeBox {
    /// Horizontal centre.
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
}

/// How one edge is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgePath {
    /// The points the edge passes through, from caller to callee.
    pub points: Vec<(f64, f64)>,
    /// The edge closes a cycle and runs upwards.
    pub back: bool,
    /// A method calling itself.
    pub self_loop: bool,
    /// Where its label goes.
    pub label: (f64, f64),
}

/// A finished layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// One box per node, in the order given.
    pub nodes: Vec<NodeBox>,
    /// One path per edge, in the order given.
    pub edges: Vec<EdgePath>,
    /// Width of the drawing (px).
    pub width: f64,
    /// Height of the drawing (px).
    pub height: f64,
}

/// Lays out nodes of the given sizes `(w, h)` joined by `edges` (`from`,
/// `to`: indices into `sizes`), starting at `top` px from the top.
pub fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)], top: f64) -> Layout {
    let n = sizes.len();
    let reversed = back_edges(n, edges);
    // Oriented edges of the acyclic graph (self-calls left out).
    let dag: Vec<(usize, usize)> = edges
        .iter()
        .zip(&reversed)
        .filter(|(&(a, b), _)| a != b)
        .map(|(&(a, b), &r)| if r { (b, a) } else { (a, b) })
        .collect();
    let layer = longest_path_layers(n, &dag);
    // Dummy nodes: `chains[i]` holds the dummies of edge i, top to bottom.
    let mut layer_of: Vec<usize> = layer.clone();
    let mut width: Vec<f64> = sizes.iter().map(|s| s.0).collect();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(edges.len());
    let mut links: Vec<(usize, usize)> = Vec::new();
    for (&(a, b), &r) in edges.iter().zip(&reversed) {
        let (u, v) = if r { (b, a) } else { (a, b) };
        let mut chain = Vec::new();
        if u != v {
            let mut prev = u;
            for l in layer[u] + 1..layer[v] {
                let d = layer_of.len();
                layer_of.push(l);
                width.push(DUMMY_WIDTH);
                links.push((prev, d));
                chain.push(d);
                prev = d;
            }
            links.push((prev, v));
        }
        chains.push(chain);
    }
    let layers = layer_of.iter().max().map_or(0, |&m| m + 1);
    let order = ordering(&layer_of, layers, &links);
    // Vertical placement: each layer as tall as its tallest node.
    let mut heights = vec![0.0f64; layers];
    for (i, s) in sizes.iter().enumerate() {
        heights[layer[i]] = heights[layer[i]].max(s.1);
    }
    let mut ys = Vec::with_capacity(layers);
    let mut y = top + MARGIN;
    for h in &heights {
        ys.push(y);
        y += h + LAYER_GAP;
    }
    let xs = place(&order, &width, &links, layer_of.len());
    let min_x = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let shift = if min_x.is_finite() { MARGIN - min_x } else { MARGIN };
    let boxes: Vec<NodeBox> = (0..n)
        .map(|i| NodeBox {
            x: xs[i] + shift,
            y: ys[layer[i]] + (heights[layer[i]] - sizes[i].1) / 2.0,
            w: sizes[i].0,
            h: sizes[i].1,
            layer: layer[i],
        })
        .collect();
    let dummy_at = |d: usize| {
        (
            xs[d] + shift + DUMMY_WIDTH / 2.0,
            ys[layer_of[d]] + heights[layer_of[d]] / 2.0,
        )
    };
    let mut width_px = boxes.iter().map(|b| b.x + b.w).fold(0.0, f64::max);
    for d in n..layer_of.len() {
        width_px = width_px.max(dummy_at(d).0);
    }
    let paths = edges
        .iter()
        .zip(&reversed)
        .zip(&chains)
        .map(|((&(a, b), &r), chain)| {
            if a == b {
                let bx = &boxes[a];
                let (x, y) = (bx.x + bx.w, bx.y + bx.h / 2.0);
                return EdgePath {
                    points: vec![(x, y - 6.0), (x + 22.0, y - 14.0), (x + 22.0, y + 14.0), (x, y + 6.0)],
                    back: false,
                    self_loop: true,
                    label: (x + 26.0, y),
                };
            }
            let (u, v) = if r { (b, a) } else { (a, b) };
            let (bu, bv) = (&boxes[u], &boxes[v]);
            let mut points = vec![(bu.cx(), bu.y + bu.h)];
            points.extend(chain.iter().map(|&d| dummy_at(d)));
            points.push((bv.cx(), bv.y));
            if r {
                points.reverse();
            }
            let mid = points.len() / 2;
            let (p, q) = (points[mid - 1], points[mid]);
            EdgePath {
                label: ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0),
                points,
                back: r,
                self_loop: false,
            }
        })
        .collect::<Vec<_>>();
    let label_right = paths.iter().map(|p| p.label.0 + 40.0).fold(0.0, f64::max);
    Layout {
        nodes: boxes,
        edges: paths,
        width: width_px.max(label_right) + MARGIN,
        height: (y - LAYER_GAP + MARGIN).max(top + 2.0 * MARGIN),
    }
}

/// Which edges close a cycle, found by a depth-first search from the
/// sources first (in index order), then from any node not yet reached.
fn back_edges(n: usize, edges: &[(usize, usize)]) -> Vec<bool> {
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for (i, &(a, b)) in edges.iter().enumerate() {
        out_edges[a].push(i);
        if a != b {
            indegree[b] += 1;
        }
    }
    // 0 unseen, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut back = vec![false; edges.len()];
    let starts: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).chain(0..n).collect();
    for s in starts {
        if state[s] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(s, 0)];
        state[s] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&e) = out_edges[v].get(*next) {
                *next += 1;
                let w = edges[e].1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => back[e] = w != v,
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    back
}

/// The longest path from a source to each node of an acyclic graph.
fn longest_path_layers(n: usize, dag: &[(usize, usize)]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in dag {
        out[a].push(b);
        indegree[b] += 1;
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).rev().collect();
    while let Some(v) = ready.pop() {
        for &w in &out[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    layer
}

/// Orders each layer by barycentres (positions of the neighbours in the
/// layer above on the way down, below on the way up), keeping the order
/// with the fewest crossings.
fn ordering(layer_of: &[usize], layers: usize, links: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); layers];
    for (v, &l) in layer_of.iter().enumerate() {
        order[l].push(v);
    }
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); layer_of.len()];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); layer_of.len()];
    for &(a, b) in links {
        down[a].push(b);
        up[b].push(a);
    }
    let mut pos = vec![0usize; layer_of.len()];
    let index = |order: &[Vec<usize>], pos: &mut [usize]| {
        for l in order {
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    index(&order, &mut pos);
    let mut best = (crossings(&order, &pos, &down), order.clone());
    let mut stale = 0;
    for _ in 0..SWEEPS {
        if best.0 == 0 || stale >= 2 {
            break;
        }
        let before = best.0;
        for (range, nbrs) in [
            ((1..layers).collect::<Vec<_>>(), &up),
            ((0..layers.saturating_sub(1)).rev().collect(), &down),
        ] {
            for l in range {
                let keys: Vec<f64> = order[l]
                    .iter()
                    .map(|&v| {
                        let ns = &nbrs[v];
                        if ns.is_empty() {
                            pos[v] as f64
                        } else {
                            ns.iter().map(|&u| pos[u] as f64).sum::<f64>() / ns.len() as f64
                        }
                    })
                    .collect();
                let mut idx: Vec<usize> = (0..order[l].len()).collect();
                idx.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
                order[l] = idx.iter().map(|&i| order[l][i]).collect();
                for (i, &v) in order[l].iter().enumerate() {
                    pos[v] = i;
                }
            }
            let c = crossings(&order, &pos, &down);
            if c < best.0 {
                best = (c, order.clone());
            }
        }
        stale = if best.0 < before { 0 } else { stale + 1 };
    }
    best.1
}

/// Edge crossings between consecutive layers: inversions of the callees'
/// positions when edges are sorted by their callers' (a Fenwick tree).
fn crossings(order: &[Vec<usize>], pos: &[usize], down: &[Vec<usize>]) -> u64 {
    let mut total = 0u64;
    for l in order.iter().take(order.len().saturating_sub(1)) {
        let mut pairs: Vec<(usize, usize)> = l
            .iter()
            .flat_map(|&v| down[v].iter().map(move |&w| (pos[v], pos[w])))
            .collect();
        pairs.sort_unstable();
        let size = pairs.iter().map(|p| p.1 + 1).max().unwrap_or(0);
        let mut tree = vec![0u64; size + 1];
        for (seen, &(_, b)) in pairs.iter().enumerate() {
            // Earlier edges whose callee lies strictly right of b cross this one.
            let mut i = b + 1;
            let mut upto = 0;
            while i > 0 {
                upto += tree[i];
                i &= i - 1;
            }
            total += seen as u64 - upto;
            let mut i = b + 1;
            while i <= size {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// Horizontal positions (left edges): packed in order, then pulled towards
/// the mean centre of their neighbours a few times, keeping order and gaps.
fn place(order: &[Vec<usize>], width: &[f64], links: &[(usize, usize)], count: usize) -> Vec<f64> {
    let mut x = vec![0.0f64; count];
    for l in order {
        let mut at = 0.0;
        for &v in l {
            x[v] = at;
            at += width[v] + NODE_GAP;
        }
    }
    let mut nbrs: Vec<Vec<usize>> = vec![Vec::new(); count];
    for &(a, b) in links {
        nbrs[a].push(b);
        nbrs[b].push(a);
    }
    for _ in 0..6 {
        for l in order {
            let want: Vec<f64> = l
                .iter()
                .map(|&v| {
                    if nbrs[v].is_empty() {
                        x[v]
                    } else {
                        let c = nbrs[v].iter().map(|&u| x[u] + width[u] / 2.0).sum::<f64>() / nbrs[v].len() as f64;
                        c - width[v] / 2.0
                    }
                })
                .collect();
            // Packed rightwards from the wishes, and leftwards; both keep
            // order and gaps, and so does their mean.
            let k = l.len();
            let mut right = want.clone();
            for i in 1..k {
                right[i] = right[i].max(right[i - 1] + width[l[i - 1]] + NODE_GAP);
            }
            let mut left = want.clone();
            for i in (0..k.saturating_sub(1)).rev() {
                left[i] = left[i].min(left[i + 1] - NODE_GAP - width[l[i]]);
            }
            let placed: Vec<f64> = right.iter().zip(&left).map(|(a, b)| (a + b) / 2.0).collect();
            for (i, &v) in l.iter().enumerate() {
                x[v] = placed[i];
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: &NodeBox, b: &NodeBox) -> bool {
        a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
    }

    #[test]
    fn layers_follow_calls_and_cycles_are_broken() {
        // 0 → 1 → 2 → 0 (a cycle), 0 → 2, 2 → 2 (self-call), 3 alone.
        let sizes = [(80.0, 30.0); 4];
        let edges = [(0, 1), (1, 2), (2, 0), (0, 2), (2, 2)];
        let l = layout(&sizes, &edges, 0.0);
        let layer: Vec<usize> = l.nodes.iter().map(|b| b.layer).collect();
        assert_eq!(layer, [0, 1, 2, 0]);
        assert!(l.edges[2].back && !l.edges[0].back);
        assert!(l.edges[4].self_loop);
        // The long edge 0 → 2 passes through one dummy.
        assert_eq!(l.edges[3].points.len(), 3);
        // The back edge 2 → 0 starts at 2 and ends at 0.
        let p = &l.edges[2].points;
        assert_eq!(p[0].0, l.nodes[2].cx());
        assert_eq!(p.last().unwrap().0, l.nodes[0].cx());
        for (i, a) in l.nodes.iter().enumerate() {
            for b in &l.nodes[i + 1..] {
                assert!(!overlaps(a, b), "{a:?} {b:?}");
            }
            assert!(a.x >= 0.0 && a.x + a.w <= l.width && a.y + a.h <= l.height);
        }
    }

    #[test]
    fn crossings_are_counted_and_avoided() {
        // Two callers, each calling "its" callee: listed crosswise.
        let order = vec![vec![0, 1], vec![2, 3]];
        let down = vec![vec![3], vec![2], vec![], vec![]];
        assert_eq!(crossings(&order, &[0, 1, 0, 1], &down), 1);
        let l = layout(&[(50.0, 20.0); 4], &[(0, 3), (1, 2)], 0.0);
        let (a, b) = (&l.nodes, &l.edges);
        assert!(b.iter().all(|e| !e.back));
        assert_eq!(a[0].x < a[1].x, a[3].x < a[2].x, "no crossing: {a:?}");
    }
}
