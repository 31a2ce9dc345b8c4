// The Camera pose source: the device camera and MediaPipe's BlazePose (Tasks Vision), loaded from its public
// CDN only when this source is chosen. Landmarks go to the server as `format: "mediapipe"` (normalised 33
// landmarks with width/height, docs/protocol.md §4). The detector sees the camera's raw (unmirrored) frames, whose
// left/right labels are anatomical; the preview is shown mirrored like a selfie, overlay included, which changes
// no coordinates. A camera that delivers already-mirrored frames needs "swap left and right" (`mirrored: true`).

const VERSION = '0.10.14';
export const MEDIAPIPE_URL = `https://cdn.jsdelivr.net/npm/@mediapipe/tasks-vision@${VERSION}/vision_bundle.mjs`;
const WASM_URL = `https://cdn.jsdelivr.net/npm/@mediapipe/tasks-vision@${VERSION}/wasm`;
const MODEL_URL = 'https://storage.googleapis.com/mediapipe-models/pose_landmarker/pose_landmarker_lite/float16/1/pose_landmarker_lite.task';
const LOAD_TIMEOUT_MS = 20000;

export class CameraLoadError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind; // 'detector' or 'camera'
  }
}

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: timed out`)), ms)),
  ]);
}

let landmarkerPromise = null;

async function loadLandmarker() {
  if (!landmarkerPromise) {
    landmarkerPromise = (async () => {
      const vision = await withTimeout(import(/* webpackIgnore: true */ MEDIAPIPE_URL), LOAD_TIMEOUT_MS, 'MediaPipe');
      const fileset = await withTimeout(vision.FilesetResolver.forVisionTasks(WASM_URL), LOAD_TIMEOUT_MS, 'MediaPipe WASM');
      return withTimeout(vision.PoseLandmarker.createFromOptions(fileset, {
        baseOptions: { modelAssetPath: MODEL_URL, delegate: 'GPU' },
        runningMode: 'VIDEO',
        numPoses: 1,
      }), LOAD_TIMEOUT_MS, 'pose model');
    })();
    landmarkerPromise.catch(() => { landmarkerPromise = null; });
  }
  return landmarkerPromise;
}

/**
 * Prepares the camera source: loads the detector, then opens the front camera into `video`.
 * `detector` replaces MediaPipe's: any object with MediaPipe's `detectForVideo(video, milliseconds)` answering
 * `{landmarks: [[{x, y, visibility}, …33]]}` (normalised, origin top-left). By default it is
 * `globalThis.motionPoseDetector` when a page (or a test) sets one, else BlazePose from the CDN.
 * Throws CameraLoadError ('detector' or 'camera') with a plain message.
 */
export async function createCameraSource(video, { swap = false, detector = globalThis.motionPoseDetector } = {}) {
  let landmarker = detector;
  try {
    if (!landmarker) landmarker = await loadLandmarker();
  } catch (e) {
    throw new CameraLoadError('detector', e?.message || String(e));
  }
  let stream;
  try {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error('no camera API (a secure https page is needed)');
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false,
    });
  } catch (e) {
    throw new CameraLoadError('camera', e?.message || e?.name || String(e));
  }
  video.srcObject = stream;
  await video.play();
  let running = false;
  let handle = 0;
  const keypoints = new Array(33 * 3).fill(0);
  return {
    format: 'mediapipe',
    mirrored: swap,
    begin(send, onPose) {
      running = true;
      let lastVideoTime = -1;
      const step = () => {
        if (!running) return;
        if (video.readyState >= 2 && video.currentTime !== lastVideoTime) {
          lastVideoTime = video.currentTime;
          const now = performance.now();
          const result = landmarker.detectForVideo(video, now);
          const marks = result?.landmarks?.[0];
          for (let i = 0; i < 33; i++) {
            const m = marks?.[i];
            keypoints[i * 3] = m ? Math.round(m.x * 10000) / 10000 : 0;
            keypoints[i * 3 + 1] = m ? Math.round(m.y * 10000) / 10000 : 0;
            keypoints[i * 3 + 2] = m ? Math.round((m.visibility ?? 1) * 100) / 100 : 0;
          }
          const frame = { width: video.videoWidth, height: video.videoHeight, keypoints };
          onPose(frame);
          send(frame);
        }
        handle = requestAnimationFrame(step);
      };
      handle = requestAnimationFrame(step);
    },
    stop() {
      running = false;
      cancelAnimationFrame(handle);
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
    },
  };
}
