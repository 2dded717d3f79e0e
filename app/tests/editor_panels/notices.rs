//! Notices go when they are due, even while nothing else asks for a frame
//! (a paused session): the toasts ask for the frame that removes them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use stepframe_app::editor::shared::NOTICE_SECONDS;

use crate::support::editor::{click, editor};
use crate::support::labels_starting;

#[test]
fn a_notice_asks_for_the_frame_that_removes_it_while_the_session_is_paused() {
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    click(&mut h, "Ground West");
    // Every delay the editor asks egui to repaint after.
    let asked: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let seen = asked.clone();
    h.ctx.set_repaint_observer(move |info| {
        seen.lock().expect("the list").push(info.delay);
    });
    h.key_press(egui::Key::F9);
    h.run_steps(3);
    assert_eq!(
        labels_starting(&h, "F9: Ground West #2 has no FixedUpdate hook").len(),
        1,
        "a notice is shown"
    );
    let due = Duration::from_secs_f64(NOTICE_SECONDS);
    let asked = asked.lock().expect("the list").clone();
    assert!(
        asked
            .iter()
            .any(|d| *d > Duration::from_millis(500) && *d <= due),
        "a repaint when the notice is due (within {due:?}): {asked:?}"
    );
}
