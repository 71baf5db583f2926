//! Text renderings of a [`Diagram`]: PlantUML and Mermaid.

use crate::diagram::{Diagram, MessageKind};

fn boxes(d: &Diagram) -> Vec<(u32, Vec<usize>)> {
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for (i, p) in d.participants.iter().enumerate() {
        match out.last_mut() {
            Some((pid, v)) if *pid == p.pid => v.push(i),
            _ => out.push((p.pid, vec![i])),
        }
    }
    out
}

fn quote(s: &str) -> String {
    s.replace('"', "'")
}

/// PlantUML source (`@startuml` … `@enduml`).
pub fn plantuml(d: &Diagram) -> String {
    let mut s = String::from("@startuml\n");
    for (pid, members) in boxes(d) {
        s.push_str(&format!("box \"process {pid}\"\n"));
        for i in members {
            let p = &d.participants[i];
            let kind = if p.object_id.is_none() { "actor" } else { "participant" };
            s.push_str(&format!(
                "  {kind} \"{}\" as p{i}\n",
                quote(&p.label()).replace('\n', "\\n")
            ));
        }
        s.push_str("end box\n");
    }
    for m in &d.messages {
        let color = if m.deadlock { "[#red]" } else { "" };
        let (a, b) = (m.from, m.to);
        match m.kind {
            MessageKind::Call => s.push_str(&format!("p{a} -{color}> p{b} : {}\nactivate p{b}\n", m.label)),
            MessageKind::AsyncCall => s.push_str(&format!("p{a} -{color}>> p{b} : {}\n", m.label)),
            MessageKind::Return => s.push_str(&format!("p{a} --> p{b}\ndeactivate p{a}\n")),
            MessageKind::Create => s.push_str(&format!("p{a} -> p{b} : «create»\n")),
            MessageKind::Destroy => s.push_str(&format!("p{a} -> p{b} : «destroy»\ndestroy p{b}\n")),
        }
        if m.deadlock {
            s.push_str(&format!(
                "note right of p{a} #pink : deadlock: blocked in {}\n",
                m.label
            ));
        }
    }
    s.push_str("@enduml\n");
    s
}

/// Mermaid `sequenceDiagram` source.
pub fn mermaid(d: &Diagram) -> String {
    let mut s = String::from("sequenceDiagram\n");
    for (pid, members) in boxes(d) {
        s.push_str(&format!("  box process {pid}\n"));
        for i in members {
            let p = &d.participants[i];
            let kind = if p.object_id.is_none() { "actor" } else { "participant" };
            s.push_str(&format!(
                "  {kind} p{i} as {}\n",
                p.label().replace('\n', "<br/>").replace([';', '#'], "_")
            ));
        }
        s.push_str("  end\n");
    }
    for m in &d.messages {
        let (a, b) = (m.from, m.to);
        let label = m.label.replace([';', '#'], "_");
        match m.kind {
            MessageKind::Call if a == b => s.push_str(&format!("  p{a}->>p{b}: {label}\n")),
            MessageKind::Call => s.push_str(&format!("  p{a}->>+p{b}: {label}\n")),
            MessageKind::AsyncCall => s.push_str(&format!("  p{a}-)p{b}: {label}\n")),
            MessageKind::Return if a == b => s.push_str(&format!("  p{a}-->>p{b}: \n")),
            MessageKind::Return => s.push_str(&format!("  p{a}-->>-p{b}: \n")),
            MessageKind::Create => s.push_str(&format!("  p{a}->>p{b}: «create»\n")),
            MessageKind::Destroy => s.push_str(&format!("  p{a}-xp{b}: «destroy»\n")),
        }
        if m.deadlock {
            s.push_str(&format!("  Note over p{a}: deadlock: blocked in {label}\n"));
        }
    }
    s
}
