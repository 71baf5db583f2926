//! The traced app: a browser's threads and the methods they call.

use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::threads::ThreadGen;
use tracekit_model::{Method, MethodId, Session, Thread};

macro_rules! methods {
    ($($field:ident = $class:literal $name:literal $sig:literal $file:literal $line:literal;)*) => {
        /// Method ids of the simulated browser.
        pub(crate) struct Methods { $(pub $field: MethodId,)* }
        impl Methods {
            pub fn register(s: &mut Session) -> Methods {
                Methods { $($field: {
                    let mut m = Method::new($class, $name, $sig);
                    m.source_file = Some($file.to_string());
                    m.line = Some($line);
                    s.methods.intern(m)
                },)* }
            }
        }
    };
}

methods! {
    looper_loop = "android/os/Looper" "loop" "()V" "Looper.java" 109;
    queue_next = "android/os/MessageQueue" "next" "()Landroid/os/Message;" "MessageQueue.java" 125;
    dispatch = "android/os/Handler" "dispatchMessage" "(Landroid/os/Message;)V" "Handler.java" 95;
    do_frame = "android/view/Choreographer" "doFrame" "(JI)V" "Choreographer.java" 532;
    traversals = "android/view/ViewRootImpl" "performTraversals" "()V" "ViewRootImpl.java" 1174;
    layout = "android/view/View" "layout" "(IIII)V" "View.java" 14016;
    on_draw = "org/mozilla/gecko/gfx/LayerView" "onDraw" "(Landroid/graphics/Canvas;)V" "LayerView.java" 211;
    toolbar_refresh = "org/mozilla/gecko/BrowserToolbar" "refresh" "()V" "BrowserToolbar.java" 644;
    hashmap_get = "java/util/HashMap" "get" "(Ljava/lang/Object;)Ljava/lang/Object;" "HashMap.java" 298;
    string_builder = "java/lang/StringBuilder" "append" "(Ljava/lang/String;)Ljava/lang/StringBuilder;" "StringBuilder.java" 124;
    on_touch = "org/mozilla/gecko/gfx/PanZoomController" "onTouchEvent" "(Landroid/view/MotionEvent;)Z" "PanZoomController.java" 198;
    scroll_by = "org/mozilla/gecko/gfx/PanZoomController" "scrollBy" "(FF)V" "PanZoomController.java" 742;
    sync_viewport = "org/mozilla/gecko/gfx/GeckoLayerClient" "syncViewportInfo" "(IIIIFZ)Lorg/mozilla/gecko/gfx/ViewTransform;" "GeckoLayerClient.java" 362;
    config_changed = "org/mozilla/gecko/GeckoApp" "onConfigurationChanged" "(Landroid/content/res/Configuration;)V" "GeckoApp.java" 2071;
    size_changed = "org/mozilla/gecko/gfx/LayerView" "onSizeChanged" "(IIII)V" "LayerView.java" 268;
    set_viewport_size = "org/mozilla/gecko/gfx/GeckoLayerClient" "setViewportSize" "(Lorg/mozilla/gecko/gfx/FloatSize;)V" "GeckoLayerClient.java" 180;
    handle_message = "org/mozilla/gecko/GeckoAppShell" "handleMessage" "(Ljava/lang/String;Lorg/json/JSONObject;)V" "GeckoAppShell.java" 2213;
    set_page_rect = "org/mozilla/gecko/gfx/GeckoLayerClient" "setPageRect" "(Lorg/mozilla/gecko/gfx/RectF;Lorg/mozilla/gecko/gfx/RectF;)V" "GeckoLayerClient.java" 414;
    metrics_init = "org/mozilla/gecko/gfx/ImmutableViewportMetrics" "<init>" "(Lorg/mozilla/gecko/gfx/ViewportMetrics;)V" "ImmutableViewportMetrics.java" 34;
    json_get = "org/json/JSONObject" "getString" "(Ljava/lang/String;)Ljava/lang/String;" "JSONObject.java" 545;
    on_key_down = "org/mozilla/gecko/GeckoApp" "onKeyDown" "(ILandroid/view/KeyEvent;)Z" "GeckoApp.java" 2392;
    brb = "org/contextlogger/ContextLogger" "brb" "()V" "ContextLogger.java" 188;
    load_url = "org/mozilla/gecko/Tabs" "loadUrl" "(Ljava/lang/String;I)V" "Tabs.java" 530;
    send_event = "org/mozilla/gecko/GeckoAppShell" "sendEventToGecko" "(Lorg/mozilla/gecko/GeckoEvent;)V" "GeckoAppShell.java" 250;
    gl_run = "android/opengl/GLSurfaceView$GLThread" "guardedRun" "()V" "GLSurfaceView.java" 1353;
    gl_wait = "java/lang/Object" "wait" "()V" "Object.java" 401;
    draw_frame = "org/mozilla/gecko/gfx/LayerRenderer" "onDrawFrame" "(Ljavax/microedition/khronos/opengles/GL10;)V" "LayerRenderer.java" 258;
    draw_background = "org/mozilla/gecko/gfx/LayerRenderer$Frame" "drawBackground" "()V" "LayerRenderer.java" 630;
    layer_draw = "org/mozilla/gecko/gfx/TileLayer" "draw" "(Lorg/mozilla/gecko/gfx/Layer$RenderContext;)V" "TileLayer.java" 142;
    gl_draw_arrays = "android/opengl/GLES20" "glDrawArrays" "(III)V" "GLES20.java" 0;
    gecko_run = "org/mozilla/gecko/GeckoThread" "run" "()V" "GeckoThread.java" 96;
    native_event = "org/mozilla/gecko/GeckoAppShell" "processNextNativeEvent" "(Z)Z" "GeckoAppShell.java" 301;
    parse_html = "org/mozilla/gecko/GeckoAppShell" "notifyDocumentLoaded" "(I)V" "GeckoAppShell.java" 1410;
    gc = "dalvik/system/VMRuntime" "gcSoftReferences" "()V" "VMRuntime.java" 77;
    net_run = "org/mozilla/gecko/util/NetworkTask" "run" "()V" "NetworkTask.java" 40;
    socket_read = "java/net/SocketInputStream" "read" "([BII)I" "SocketInputStream.java" 107;
    inflate = "java/util/zip/Inflater" "inflate" "([BII)I" "Inflater.java" 256;
}

/// Builds the four threads' call events into the session; returns the
/// method ids.
pub(crate) fn trace_threads(s: &mut Session, sc: &Scenario, rng: &mut Rng) -> Methods {
    let m = Methods::register(s);
    let frames = sc.frames();
    let threads = [(1, "main"), (11, "GLThread 12"), (13, "Gecko"), (17, "Socket Thread")];
    // Built in this order: each thread draws from the one generator.
    let built = vec![
        main_thread(&m, sc, &frames, rng),
        render_thread(&m, sc, &frames, rng),
        gecko_thread(&m, sc, rng),
        network_thread(&m, sc, rng),
    ];
    for ((tid, name), events) in threads.into_iter().zip(built) {
        let id = s.add_thread(Thread::new(tid, name));
        let calls = s.calls_mut(id);
        for e in events {
            calls.push(e);
        }
    }
    m
}

/// Things the UI thread reacts to, in time order.
enum Ui {
    Frame,
    Turn,
    Bug,
    Brb,
    Load,
}

fn main_thread(m: &Methods, sc: &Scenario, frames: &[u64], rng: &mut Rng) -> Vec<tracekit_model::CallEvent> {
    let mut work: Vec<(u64, Ui)> = frames.iter().map(|&f| (f, Ui::Frame)).collect();
    work.extend(sc.orientation.iter().skip(1).map(|&(t, _)| (t, Ui::Turn)));
    work.extend(sc.bug.iter().map(|&t| (t, Ui::Bug)));
    work.extend(sc.brb.iter().map(|&t| (t, Ui::Brb)));
    work.extend(sc.loads.iter().map(|&(t, _)| (t, Ui::Load)));
    work.sort_by_key(|w| w.0);
    let mut g = ThreadGen::new(0);
    g.enter(m.looper_loop);
    for (at, what) in work {
        if at > g.now_us {
            g.enter(m.queue_next);
            g.idle_until(at);
            g.exit();
        }
        g.enter(m.dispatch);
        match what {
            Ui::Frame => {
                let scrolling = sc.scrolling(at);
                // Under the defect every frame lays the whole page out again.
                let relayout = if sc.redrawing(at) { 6_000 } else { 0 };
                g.call(m.do_frame, 300, |g| {
                    if scrolling {
                        g.call(m.on_touch, 120, |g| g.leaf(m.scroll_by, 60 + rng.int(0, 80)));
                    }
                    g.call(m.traversals, 900 + rng.int(0, 1500), |g| {
                        g.leaf(m.layout, 200 + relayout + rng.int(0, 400 + relayout / 2));
                        g.call(m.on_draw, 300, |g| {
                            g.call(m.sync_viewport, 150, |g| g.leaf(m.metrics_init, 30));
                            for _ in 0..rng.int(1, 4) {
                                g.leaf(m.hashmap_get, 3 + rng.int(0, 6));
                            }
                        });
                        if rng.chance(0.1) {
                            g.call(m.toolbar_refresh, 400, |g| g.leaf(m.string_builder, 20));
                        }
                    });
                });
            }
            Ui::Turn => g.call(m.config_changed, 2_000, |g| {
                g.call(m.size_changed, 1_500, |g| {
                    g.call(m.set_viewport_size, 3_000, |g| g.leaf(m.metrics_init, 40))
                });
            }),
            Ui::Bug => g.call(m.handle_message, 800, |g| {
                g.leaf(m.json_get, 30);
                g.call(m.set_page_rect, 4_000, |g| g.leaf(m.metrics_init, 40));
            }),
            Ui::Brb => g.call(m.on_key_down, 150, |g| g.leaf(m.brb, 5)),
            Ui::Load => g.call(m.load_url, 3_000, |g| {
                g.leaf(m.string_builder, 40);
                g.leaf(m.send_event, 200);
                // A malformed message from the page: getString throws.
                g.enter(m.handle_message);
                g.enter(m.json_get);
                g.busy(25);
                g.unwind();
                g.busy(80);
                g.exit();
            }),
        }
        g.exit();
    }
    g.enter(m.queue_next);
    g.idle_until(sc.duration_us);
    g.finish()
}

fn render_thread(m: &Methods, sc: &Scenario, frames: &[u64], rng: &mut Rng) -> Vec<tracekit_model::CallEvent> {
    let mut g = ThreadGen::new(0);
    g.enter(m.gl_run);
    for &f in frames {
        let at = f + 2_000;
        if at > g.now_us {
            g.enter(m.gl_wait);
            g.idle_until(at);
            g.exit();
        }
        // The defect's stale page rectangle invalidates the whole page: every
        // tile is redrawn each frame until the screen turns back.
        let tiles = if sc.redrawing(f) {
            rng.int(12, 16)
        } else if sc.loading(f) {
            rng.int(4, 9)
        } else {
            rng.int(2, 5)
        };
        g.call(m.draw_frame, 400, |g| {
            g.leaf(m.draw_background, 150);
            for _ in 0..tiles {
                g.call(m.layer_draw, 250 + rng.int(0, 500), |g| {
                    g.leaf(m.gl_draw_arrays, 40 + rng.int(0, 60))
                });
            }
        });
    }
    g.enter(m.gl_wait);
    g.idle_until(sc.duration_us);
    g.finish()
}

fn gecko_thread(m: &Methods, sc: &Scenario, rng: &mut Rng) -> Vec<tracekit_model::CallEvent> {
    let mut g = ThreadGen::new(0);
    g.enter(m.gecko_run);
    let mut t = 0u64;
    while t < sc.duration_us {
        let loading = sc.loading(t);
        t += if loading {
            4_000 + rng.int(0, 6_000)
        } else {
            40_000 + rng.int(0, 120_000)
        };
        g.idle_until(t);
        g.call(m.native_event, 200 + rng.int(0, 400), |g| {
            if loading {
                g.leaf(m.parse_html, 1_500 + rng.int(0, 3_000));
            }
        });
        if rng.chance(0.01) {
            g.leaf(m.gc, 8_000 + rng.int(0, 12_000));
        }
    }
    g.finish()
}

fn network_thread(m: &Methods, sc: &Scenario, rng: &mut Rng) -> Vec<tracekit_model::CallEvent> {
    let mut g = ThreadGen::new(0);
    for &(a, b) in &sc.loads {
        g.idle_until(a + 5_000);
        g.call(m.net_run, 500, |g| {
            while g.now_us + 20_000 < b {
                g.leaf(m.socket_read, 300 + rng.int(0, 900));
                if rng.chance(0.3) {
                    g.leaf(m.inflate, 200 + rng.int(0, 400));
                }
                let gap = g.now_us + 4_000 + rng.int(0, 15_000);
                g.idle_until(gap);
            }
        });
    }
    g.finish()
}
