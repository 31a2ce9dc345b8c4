// The one translation table of the front end (Spanish and English), and helpers to apply it.
// Every FormFeedback and SetupIssue raw value of docs/protocol.md §1 has a text under `fault.*` / `setup.*`, and every
// error code of docs/protocol.md §3 and §5 one under `error.*` (errors.js). Exercise names are the server's own
// (`names` of each exercise, docs/protocol.md §5.1), not this table's.

export const TABLE = {
  en: {
    'app.title': 'Motion',
    'nav.live': 'Live', 'nav.history': 'History', 'nav.watch': 'Watch',
    'lang.label': 'Language',
    'token.summary': 'Access code', 'token.label': 'Access code (only if the server asks for one)', 'token.save': 'Save',
    'token.saved': 'Access code accepted.', 'token.cleared': 'Access code removed.', 'token.checking': 'Checking…',
    'token.rejected': 'Access code rejected: check it and enter it again.',
    'token.needed': 'This server needs an access code: enter it under “Access code”.',
    'token.forbidden': 'This access code may not do that.',
    'token.unreachable': 'Saved, but the server could not be reached to check it.',
    'live.heading': 'Live session',
    'nav.exercises': 'Exercises', 'title.exercises': 'Motion — Exercises',
    'exercises.heading': 'Exercises of this clinic', 'exercises.new': 'New exercise',
    'exercises.newButton': 'New exercise', 'exercises.editing': 'Editing “{name}”',
    'exercises.id': 'Id (letters and digits)', 'exercises.name': 'Name', 'exercises.view': 'Camera view',
    'exercises.sagittal': 'Side on', 'exercises.frontal': 'Facing', 'exercises.kind': 'Kind',
    'exercises.rep': 'Repetitions', 'exercises.hold': 'Hold', 'exercises.sidedness': 'Sides',
    'exercises.oneSided': 'One side', 'exercises.bilateral': 'Both together', 'exercises.alternating': 'Alternating',
    'exercises.direction': 'A rep goes', 'exercises.rising': 'Up from rest', 'exercises.falling': 'Down from rest',
    'exercises.measurement': 'Measurement (JSON, docs/protocol.md §5.1)', 'exercises.rest': 'Rest',
    'exercises.enter': 'Enter', 'exercises.exit': 'Exit', 'exercises.minAmplitude': 'Least amplitude',
    'exercises.preview': 'What will be sent',
    'exercises.try': 'Try it',
    'exercises.tryHelp': 'The figure performs the exercise as defined above; the counts are the server\'s, measured with this definition before it is saved.',
    'exercises.tryActed': 'The figure does {count} {kind}; {faulty} of them with a form fault.',
    'exercises.tryReps': 'repetitions', 'exercises.tryHolds': 'holds',
    'exercises.tryCounted': 'Counted: {reps} · rejected: {rejected}',
    'exercises.tryRefused': 'Not measurable yet: {message}',
    'exercises.tryMeasuring': 'Measuring…',
    'exercises.tryNeeds': 'Fill in rest, enter, exit, least amplitude and target to try it.', 'exercises.badJSON': 'The measurement is not valid JSON.',
    'exercises.needId': 'Give the exercise an id.', 'exercises.saved': 'Saved “{name}” (version {version}).',
    'exercises.deleted': 'Deleted “{name}”.', 'exercises.confirmDelete': 'Delete the exercise “{name}”? Sessions already stored keep it.',
    'exercises.none': 'No exercises of your own yet: describe one below.', 'exercises.edit': 'Edit',
    'exercises.editNamed': 'Edit {name}', 'exercises.deleteNamed': 'Delete {name}', 'btn.save': 'Save', 'exercises.delete': 'Delete',
    'nav.progress': 'Progress', 'title.progress': 'Motion — Progress', 'progress.heading': 'Progress over sessions',
    'btn.show': 'Show', 'status.loading': 'Loading…', 'btn.progress': 'Progress over sessions',
    'progress.rangeChart': 'Best and mean peak per session', 'progress.repChart': 'Reps per session',
    'progress.best': 'Best', 'progress.meanPeak': 'Mean peak', 'progress.withFaults': 'with faults',
    'progress.table': 'Sessions', 'progress.clean': 'Clean', 'progress.faulty': 'With faults',
    'progress.faultCounts': 'form faults', 'progress.faultTable': 'Form faults',
    'progress.summary': '{count} sessions from {from} to {to}; best {first} in the first, {last} in the latest.',
    'progress.count': '{count} sessions of {exercise} for {subject}, oldest first.',
    'progress.none': 'No sessions of {exercise} for {subject} yet.',
    'progress.needSubject': 'Enter the subject id first.',
    'rx.legend': 'Prescription', 'rx.hint': 'Empty: the exercise\'s own value (shown greyed).',
    'rx.target': 'Target', 'rx.hold': 'Hold (s)', 'rx.reps': 'Rep goal', 'rx.sets': 'Sets',
    'rx.baseline': 'Baseline reps',
    'rx.bad': '{field}: enter a number from {min} to {max}.', 'rx.badWhole': '{field}: enter a whole number from {min} to {max}.',
    'rx.setsNeedReps': 'Sets: give a rep goal too.',
    'btn.reset': 'Start over', 'btn.baseline': 'Measure baseline',
    'btn.resetTitle': 'Start over: best, counts and sets from zero',
    'btn.baselineTitle': 'Measure the baseline: a few reps as far as is comfortable',
    'live.resetSent': 'Counts started over.', 'live.baselineSent': 'Measuring the baseline: do a few reps as far as is comfortable.',
    'chart.lines': 'target {target} · enter {enter} · exit {exit}',
    'hud.setOf': 'Set {number} of {of}', 'hud.setReps': '{reps}/{goal} reps',
    'hud.setDone': 'Set {number} of {of} done!', 'hud.allSetsDone': 'All {of} sets done!',
    'event.setCompleted': 'Set {number} done.',
    'group.builtin': 'Built-in', 'group.custom': 'Custom',
    'field.exercise': 'Exercise', 'field.side': 'Side', 'field.subject': 'Subject id', 'field.source': 'Pose source',
    'side.left': 'Left', 'side.right': 'Right', 'side.both': 'Both (bilateral)',
    'source.demo': 'Demo figure', 'source.replay': 'Recording', 'source.camera': 'Camera',
    'title.live': 'Motion — Live', 'title.history': 'Motion — History', 'title.watch': 'Motion — Watch',
    'replay.file': 'Recording (JSON Lines)',
    'replay.hint': 'A JSON Lines file: a start line, then one pose per line. Live offers one to save after each session.',
    'replay.progress': 'Recording played', 'replay.playing': 'Playing the recording: {exercise}, {side}.',
    'summary.saveRecording': 'Save the recording',
    'camera.swap': 'Swap left and right (camera delivers a mirrored image)',
    'btn.start': 'Start', 'btn.stop': 'Stop', 'btn.resetChart': 'Reset chart', 'btn.useDemo': 'Use Demo instead', 'btn.useReplay': 'Replay a recording',
    'btn.filter': 'Apply filters', 'btn.clear': 'Clear', 'btn.next': 'Older', 'btn.prev': 'Newer', 'btn.first': 'First page',
    'btn.delete': 'Delete session', 'btn.csv': 'Download CSV', 'btn.back': 'Back to list', 'btn.watch': 'Watch',
    'btn.open': 'Open',
    'opt.voice': 'Voice', 'opt.vibrate': 'Vibration',
    'opt.binary': 'Compact binary frames',
    'opt.binaryHint': 'About a fifth of the bytes per pose, to save mobile data (the Camera source still sends JSON).',
    'status.idle': 'Ready. Choose an exercise and press Start.',
    'status.connecting': 'Connecting…',
    'status.started': 'Session started: {exercise}, {subject}.',
    'status.startedAnonymous': 'Session started: {exercise}.',
    'live.finished': 'Session finished: {reps} clean, {rejected} rejected. The summary is below.',
    'hud.label': 'Current measurement', 'a11y.skip': 'Skip to content', 'nav.label': 'Pages',
    'status.stopping': 'Finishing…',
    'status.closed': 'Connection closed ({code}).',
    'status.lost': 'Connection lost ({code}).',
    'status.unreachable': 'Could not start: the server closed the connection ({code}). Nothing was recorded.',
    'status.error': 'Error: {message}',
    'status.loadingCamera': 'Loading the pose detector…',
    'status.replayDone': 'Recording finished.',
    'status.noFile': 'Choose a recording file first.',
    'status.badFile': 'The file has no poses that can be read.',
    'resume.reconnecting': 'Connection lost — reconnecting…',
    'resume.keeping': 'Poses are kept here and will be sent once the connection is back.',
    'resume.resumed': 'Reconnected: the session goes on.',
    'resume.kept': 'The session stays stored up to its last checkpoint.',
    'resume.keptAt': 'The session stays stored up to its last checkpoint (pose time {t} s or later).',
    'resume.gaveUp': 'The connection could not be restored within {seconds} s.',
    'resume.stoppedOffline': 'Stopped here: the server could not be reached.',
    'resume.expired': 'The server no longer lets this session be resumed (it ended or waited too long).',
    'resume.invalid': 'The server refused to resume this session.',
    'resume.ended': 'The session could not be resumed.',
    'resume.unknownSession': 'The server does not know session {id}: it cannot be resumed.',
    'resume.takenOver': 'Another device took this session over; this page no longer sends to it.',
    'camera.failed': 'The camera pose detector could not be loaded (it needs internet on this device): {message}. You can use the Demo source, or replay a recording, instead.',
    'camera.noCamera': 'The camera could not be opened: {message}. You can use the Demo source, or replay a recording, instead.',
    'hud.angle': 'Current angle', 'hud.value': 'Current value', 'hud.height': 'Current height',
    'hud.rise': 'Current rise', 'hud.distance': 'Current distance',
    'hud.best': 'Best', 'hud.clean': 'Clean reps', 'hud.rejected': 'Rejected',
    'hud.hold': 'Hold', 'hud.confidence': 'Confidence', 'hud.target': 'Target', 'hud.lastRep': 'Last rep',
    'hud.noRep': 'No rep yet.', 'hud.peak': 'peak {peak}', 'hud.cleanRep': 'clean', 'hud.baseline': 'Baseline',
    'hud.baselineProgress': '{percent} done',
    'hud.allGood': 'Position is good.',
    'hud.notVisible': 'You are out of the frame: step back into view.',
    'hud.missing': 'Not seen: {joints}. Make sure they are in the picture.',
    'chart.label': 'Measured value over the last seconds',
    'chart.summary': 'Latest {value} · lowest {min} · highest {max} in the last {seconds} s.',
    'chart.summaryEmpty': 'No measurement yet.',
    'feedback.label': 'Feedback',
    'summary.heading': 'Session summary', 'summary.reps': 'Clean reps', 'summary.rejected': 'Rejected reps',
    'summary.best': 'Best', 'summary.duration': 'Duration', 'summary.frames': 'Frames',
    'summary.held': 'Held', 'summary.heldValue': '{seconds} s (longest of {attempts})',
    'summary.visible': 'Visible', 'summary.faults': 'Faults', 'summary.open': 'Open in History',
    'summary.saving': 'Saving the session…', 'summary.notStored': 'This session could not be saved.',
    'event.repCompleted': 'Rep {index}: {peak}. Well done!',
    'event.repRejected': 'Rep {index} not counted: {faults}',
    'event.holdStarted': 'Hold it…',
    'event.holdCompleted': 'Hold complete!',
    'event.holdBroken': 'Hold broken.',
    'event.holdEnded': 'Held {seconds} s.', 'event.holdEndedCompleted': 'Held {seconds} s: well done!',
    'event.visible': 'You are back in view.',
    'event.notVisible': 'You are out of the frame.',
    'event.setupOk': 'Position is good.',
    'event.baselineCompleted': 'Baseline measured: {value}',
    'fault.keepUpperArmStill': 'Keep your upper arm still',
    'fault.keepThighStill': 'Keep your thigh still',
    'fault.keepElbowStraight': 'Keep your elbow straight',
    'fault.keepTrunkUpright': 'Keep your trunk upright',
    'fault.keepShouldersLevel': 'Keep your shoulders level',
    'fault.keepKneeStraight': 'Keep your knee straight',
    'fault.keepHipsLevel': 'Keep your hips level',
    'fault.keepBodyStraight': 'Keep your body in a straight line',
    'setup.tooClose': 'Too close: step back so your whole body fits in the picture',
    'setup.tooFar': 'Too far: come closer to the camera',
    'setup.notCentered': 'Not centred: move to the middle of the picture',
    'setup.notFacing': 'Face the camera',
    'setup.notSideways': 'Turn sideways to the camera',
    'setup.wrongPosture': 'Take the starting position of the exercise',
    'history.heading': 'Session history', 'history.subject': 'Subject', 'history.exercise': 'Exercise',
    'history.from': 'From', 'history.to': 'To', 'history.any': 'Any', 'history.status': 'Status',
    'history.started': 'Started', 'history.reps': 'Reps', 'history.empty': 'No sessions match.',
    'history.page': 'Page {n}',
    'history.pageRange': 'Sessions {first}–{last}', 'history.pageRangeOf': 'Sessions {first}–{last} of {total}',
    'history.repCounts': '{clean} clean, {rejected} rejected', 'history.subjectHint': 'the start of the id is enough',
    'history.repChart': 'Peak of each rep', 'history.seriesChart': 'Measured value over time',
    'history.faultCounts': 'Faults', 'history.noFaults': 'No faults.', 'history.legendClean': 'clean',
    'history.legendRejected': 'rejected', 'history.legendBaseline': 'baseline', 'history.legendTarget': 'target',
    'history.confirmDelete': 'Delete session {id}? This cannot be undone.', 'history.deleted': 'Session {id} deleted.',
    'history.notFound': 'Session not found.', 'history.noSeries': 'No series stored.',
    'history.seriesText': 'Measured value over {seconds} s: from {min} to {max}, {reps} reps marked.',
    'opt.motion': 'Phone motion', 'motion.heading': 'Phone motion (m/s²)',
    'motion.chartLabel': 'The phone\'s acceleration on its x, y and z axes over the last 10 seconds',
    'motion.denied': 'Motion sensors not allowed: the session goes on without them.',
    'motion.unavailable': 'This browser gives no motion sensors.',
    'motion.waiting': 'Waiting for the phone\'s motion sensors…',
    'motion.level': 'Movement {rms} m/s², tremor {tremor} %',
    'history.motionChart': 'Phone motion (m/s²)', 'history.noMotion': 'No motion samples in this session.',
    'history.smoothness': 'Smoothness', 'history.tremor': 'Tremor',
    'history.motionText': 'The phone\'s acceleration on x, y and z over {seconds} s, from {min} to {max} m/s².',
    'history.repTable': 'Reps', 'history.peak': 'Peak', 'history.trough': 'Trough', 'history.range': 'Range',
    'history.duration': 'Duration', 'history.result': 'Result', 'history.noSubject': 'No subject',
    'history.noReps': 'No reps.',
    'status.live': 'live', 'status.finished': 'finished', 'status.abandoned': 'abandoned',
    'watch.heading': 'Watch a live session', 'watch.session': 'Session id', 'watch.following': 'Following session {id} ({subject}, {exercise}).',
    'watch.ended': 'The session has ended.', 'watch.disconnected': 'The patient’s connection dropped — waiting for it to come back.', 'watch.pick': 'Live sessions:', 'watch.none': 'No live sessions right now.',
    'watch.skeleton': 'The patient’s pose, live', 'watch.waitingPose': 'Waiting for the patient’s pose…',
    'unit.seconds': '{n} s',
    'unit.degrees': 'degrees (°)', 'unit.segmentLengths': '% of {segment}', 'unit.note': 'Values in {unit}.',
    'segment.trunk': 'the trunk length', 'segment.upperArm': 'the upper-arm length',
    'segment.forearm': 'the forearm length', 'segment.thigh': 'the thigh length', 'segment.shank': 'the shin length',
    'segment.shoulderLine': 'the shoulder width', 'segment.hipLine': 'the hip width',
    'segment.earLine': 'the head width (ear to ear)', 'segment.pair': 'the {a}–{b} distance',
    'segment.unknown': 'a body segment’s length', 'part.opposite': 'other {part}',
    'exercise.sided': '{name}, {side} side', 'sideName.left': 'left', 'sideName.right': 'right',
    'error.invalidJSON': 'The server could not read what this page sent.',
    'error.unknownType': 'The server did not understand a message from this page.',
    'error.invalidMessage': 'The server refused a value this page sent.',
    'error.invalidPose': 'A pose could not be read; it was skipped.',
    'error.nonIncreasingTime': 'A pose arrived out of order; it was skipped.',
    'error.messageTooBig': 'What this page sent is too large for the server.',
    'error.notStarted': 'The session has not started.', 'error.alreadyStarted': 'The session had already started.',
    'error.unknownExercise': 'The server does not know this exercise (it may have been deleted).',
    'error.missingSide': 'Choose a side for this exercise.',
    'error.unknownJoint': 'The poses name a joint the server does not know; it is left out.',
    'error.unknownSession': 'The server does not know this session.',
    'error.invalidResume': 'The server refused to resume this session.',
    'error.resumeExpired': 'This session can no longer be resumed.',
    'error.rateLimited': 'Too many messages: the server is slowing this page down.',
    'error.storeUnavailable': 'The server cannot save right now; try again in a moment.',
    'error.invalidExercise': 'The exercise definition is not valid.',
    'error.notFound': 'The server has no such item (it may have been deleted).',
    'error.methodNotAllowed': 'The server does not allow this here.',
    'error.badRequest': 'The server could not read what this page sent.',
    'error.badHandshake': 'The server refused the connection.',
    'error.unauthorized': 'This server needs an access code: enter it under “Access code”.',
    'error.ambiguousCredentials': 'Two access codes were sent at once; keep one.',
    'error.hostNotAllowed': 'The server does not answer to this address.',
    'error.forbidden': 'This access code may not do that.',
    'error.originNotAllowed': 'The server does not accept requests from this page’s address.',
    'error.unsupportedMediaType': 'The server could not read the format of what this page sent.',
    'error.invalidQuery': 'A value of the search is not valid.',
    'error.invalidCursor': 'This page of the list is no longer valid: start again from the first page.',
    'error.notLive': 'The session is no longer running.',
    'error.sessionLive': 'The session is still running: it can be deleted once it has ended.',
    'error.tooManySessions': 'Too many sessions are running; try again later.',
    'error.serverBusy': 'The server is busy; try again in a moment.',
    'error.exerciseExists': 'An exercise with this id already exists.',
    'error.builtinExercise': 'Built-in exercises cannot be changed or deleted.',
    'error.tooManyExercises': 'This clinic has as many exercises as it may keep: delete one first.',
    'error.tooManyVersions': 'This exercise has as many stored versions as it may keep.',
    'error.fileTooLarge': 'The file is too large for the server.',
    'error.internalError': 'The server failed; try again.',
    'error.unreachable': 'The server could not be reached.',
    'error.field': '{field}: this value is not accepted.',
    'error.range': '{field}: enter a value from {min} to {max}.',
    'error.above': '{field}: must be above {other} ({value}).',
    'error.below': '{field}: must be below {other} ({value}).',
    'error.atLeast': '{field}: must not be below {other} ({value}).',
    'error.atMost': '{field}: must not be above {other} ({value}).',
    'error.restPosition': 'the rest position',
    'error.id': '{field}: use 1 to 64 letters, digits, “-” or “_”.',
    'error.name': '{field}: give it a name of 1 to 100 characters, without control characters.',
    'error.measurement':
      '{field}: this measurement cannot be read; check its type, joints and segment (docs/exercises.md §2).',
  },
  es: {
    'app.title': 'Motion',
    'nav.live': 'En vivo', 'nav.history': 'Historial', 'nav.watch': 'Observar',
    'lang.label': 'Idioma',
    'token.summary': 'Código de acceso', 'token.label': 'Código de acceso (solo si el servidor lo pide)', 'token.save': 'Guardar',
    'token.saved': 'Código de acceso aceptado.', 'token.cleared': 'Código de acceso eliminado.', 'token.checking': 'Comprobando…',
    'token.rejected': 'Código de acceso rechazado: revíselo y vuelva a introducirlo.',
    'token.needed': 'Este servidor necesita un código de acceso: introdúzcalo en «Código de acceso».',
    'token.forbidden': 'Este código de acceso no permite hacer eso.',
    'token.unreachable': 'Guardado, pero no se pudo contactar con el servidor para comprobarlo.',
    'live.heading': 'Sesión en vivo',
    'nav.exercises': 'Ejercicios', 'title.exercises': 'Motion — Ejercicios',
    'exercises.heading': 'Ejercicios de esta clínica', 'exercises.new': 'Ejercicio nuevo',
    'exercises.newButton': 'Ejercicio nuevo', 'exercises.editing': 'Editando «{name}»',
    'exercises.id': 'Id (letras y cifras)', 'exercises.name': 'Nombre', 'exercises.view': 'Vista de la cámara',
    'exercises.sagittal': 'De lado', 'exercises.frontal': 'De frente', 'exercises.kind': 'Tipo',
    'exercises.rep': 'Repeticiones', 'exercises.hold': 'Mantenido', 'exercises.sidedness': 'Lados',
    'exercises.oneSided': 'Un lado', 'exercises.bilateral': 'Los dos a la vez', 'exercises.alternating': 'Alternos',
    'exercises.direction': 'Una repetición va', 'exercises.rising': 'Hacia arriba desde reposo', 'exercises.falling': 'Hacia abajo desde reposo',
    'exercises.measurement': 'Medida (JSON, docs/protocol.md §5.1)', 'exercises.rest': 'Reposo',
    'exercises.enter': 'Entrada', 'exercises.exit': 'Salida', 'exercises.minAmplitude': 'Amplitud mínima',
    'exercises.preview': 'Lo que se enviará',
    'exercises.try': 'Pruébelo',
    'exercises.tryHelp': 'La figura hace el ejercicio tal como está definido arriba; los recuentos son los del servidor, medidos con esta definición antes de guardarla.',
    'exercises.tryActed': 'La figura hace {count} {kind}; {faulty} con un fallo de postura.',
    'exercises.tryReps': 'repeticiones', 'exercises.tryHolds': 'mantenimientos',
    'exercises.tryCounted': 'Contadas: {reps} · rechazadas: {rejected}',
    'exercises.tryRefused': 'Aún no se puede medir: {message}',
    'exercises.tryMeasuring': 'Midiendo…',
    'exercises.tryNeeds': 'Rellene reposo, entrada, salida, amplitud mínima y objetivo para probarlo.', 'exercises.badJSON': 'La medida no es JSON válido.',
    'exercises.needId': 'Dé un id al ejercicio.', 'exercises.saved': '«{name}» guardado (versión {version}).',
    'exercises.deleted': '«{name}» borrado.', 'exercises.confirmDelete': '¿Borrar el ejercicio «{name}»? Las sesiones ya guardadas lo conservan.',
    'exercises.none': 'Aún no hay ejercicios propios: describa uno abajo.', 'exercises.edit': 'Editar',
    'exercises.editNamed': 'Editar {name}', 'exercises.deleteNamed': 'Borrar {name}', 'btn.save': 'Guardar', 'exercises.delete': 'Borrar',
    'nav.progress': 'Progreso', 'title.progress': 'Motion — Progreso', 'progress.heading': 'Progreso entre sesiones',
    'btn.show': 'Mostrar', 'status.loading': 'Cargando…', 'btn.progress': 'Progreso entre sesiones',
    'progress.rangeChart': 'Mejor y pico medio por sesión', 'progress.repChart': 'Repeticiones por sesión',
    'progress.best': 'Mejor', 'progress.meanPeak': 'Pico medio', 'progress.withFaults': 'con fallos',
    'progress.table': 'Sesiones', 'progress.clean': 'Válidas', 'progress.faulty': 'Con fallos',
    'progress.faultCounts': 'avisos de técnica', 'progress.faultTable': 'Avisos de técnica',
    'progress.summary': '{count} sesiones del {from} al {to}; mejor {first} en la primera, {last} en la última.',
    'progress.count': '{count} sesiones de {exercise} de {subject}, de la más antigua a la más reciente.',
    'progress.none': 'Aún no hay sesiones de {exercise} de {subject}.',
    'progress.needSubject': 'Escriba primero el id del paciente.',
    'rx.legend': 'Pauta', 'rx.hint': 'Vacío: el valor propio del ejercicio (en gris).',
    'rx.target': 'Objetivo', 'rx.hold': 'Mantener (s)', 'rx.reps': 'Repeticiones por serie', 'rx.sets': 'Series',
    'rx.baseline': 'Repeticiones de referencia',
    'rx.bad': '{field}: escriba un número de {min} a {max}.', 'rx.badWhole': '{field}: escriba un número entero de {min} a {max}.',
    'rx.setsNeedReps': 'Series: indique también las repeticiones por serie.',
    'btn.reset': 'Empezar de nuevo', 'btn.baseline': 'Medir referencia',
    'btn.resetTitle': 'Empezar de nuevo: mejor, contadores y series desde cero',
    'btn.baselineTitle': 'Medir la referencia: unas repeticiones hasta donde resulte cómodo',
    'live.resetSent': 'Los contadores vuelven a cero.', 'live.baselineSent': 'Midiendo la referencia: haga unas repeticiones hasta donde le resulte cómodo.',
    'chart.lines': 'objetivo {target} · entrada {enter} · salida {exit}',
    'hud.setOf': 'Serie {number} de {of}', 'hud.setReps': '{reps}/{goal} rep.',
    'hud.setDone': '¡Serie {number} de {of} hecha!', 'hud.allSetsDone': '¡Las {of} series hechas!',
    'event.setCompleted': 'Serie {number} hecha.',
    'group.builtin': 'Incluidos', 'group.custom': 'Propios',
    'field.exercise': 'Ejercicio', 'field.side': 'Lado', 'field.subject': 'Id del paciente', 'field.source': 'Fuente de la postura',
    'side.left': 'Izquierdo', 'side.right': 'Derecho', 'side.both': 'Ambos (bilateral)',
    'source.demo': 'Figura demo', 'source.replay': 'Grabación', 'source.camera': 'Cámara',
    'title.live': 'Motion — En vivo', 'title.history': 'Motion — Historial', 'title.watch': 'Motion — Observar',
    'replay.file': 'Grabación (JSON Lines)',
    'replay.hint': 'Un archivo JSON Lines: una línea de inicio y luego una postura por línea. Tras cada sesión, En vivo ofrece guardar una.',
    'replay.progress': 'Grabación reproducida', 'replay.playing': 'Reproduciendo la grabación: {exercise}, {side}.',
    'summary.saveRecording': 'Guardar la grabación',
    'camera.swap': 'Intercambiar izquierda y derecha (la cámara entrega una imagen en espejo)',
    'btn.start': 'Empezar', 'btn.stop': 'Terminar', 'btn.resetChart': 'Reiniciar gráfico', 'btn.useDemo': 'Usar la Demo', 'btn.useReplay': 'Reproducir una grabación',
    'btn.filter': 'Aplicar filtros', 'btn.clear': 'Limpiar', 'btn.next': 'Anteriores', 'btn.prev': 'Más recientes', 'btn.first': 'Primera página',
    'btn.delete': 'Borrar sesión', 'btn.csv': 'Descargar CSV', 'btn.back': 'Volver a la lista', 'btn.watch': 'Observar',
    'btn.open': 'Abrir',
    'opt.voice': 'Voz', 'opt.vibrate': 'Vibración',
    'opt.binary': 'Tramas binarias compactas',
    'opt.binaryHint': 'Una quinta parte de los bytes por postura, para ahorrar datos móviles (la fuente Cámara sigue enviando JSON).',
    'status.idle': 'Listo. Elija un ejercicio y pulse Empezar.',
    'status.connecting': 'Conectando…',
    'status.started': 'Sesión iniciada: {exercise}, {subject}.',
    'status.startedAnonymous': 'Sesión iniciada: {exercise}.',
    'live.finished': 'Sesión terminada: {reps} válidas, {rejected} rechazadas. El resumen está debajo.',
    'hud.label': 'Medición actual', 'a11y.skip': 'Saltar al contenido', 'nav.label': 'Páginas',
    'status.stopping': 'Terminando…',
    'status.closed': 'Conexión cerrada ({code}).',
    'status.lost': 'Conexión perdida ({code}).',
    'status.unreachable': 'No se pudo empezar: el servidor cerró la conexión ({code}). No se ha grabado nada.',
    'status.error': 'Error: {message}',
    'status.loadingCamera': 'Cargando el detector de postura…',
    'status.replayDone': 'La grabación ha terminado.',
    'status.noFile': 'Elija primero un archivo de grabación.',
    'status.badFile': 'El archivo no tiene posturas legibles.',
    'resume.reconnecting': 'Conexión perdida — reconectando…',
    'resume.keeping': 'Las posturas se guardan aquí y se enviarán cuando vuelva la conexión.',
    'resume.resumed': 'Reconectado: la sesión continúa.',
    'resume.kept': 'La sesión queda guardada hasta su último punto de control.',
    'resume.keptAt': 'La sesión queda guardada hasta su último punto de control (tiempo de postura {t} s o posterior).',
    'resume.gaveUp': 'No se pudo restablecer la conexión en {seconds} s.',
    'resume.stoppedOffline': 'Terminada aquí: no se pudo contactar con el servidor.',
    'resume.expired': 'El servidor ya no permite reanudar esta sesión (terminó o esperó demasiado).',
    'resume.invalid': 'El servidor rechazó reanudar esta sesión.',
    'resume.ended': 'No se pudo reanudar la sesión.',
    'resume.unknownSession': 'El servidor no conoce la sesión {id}: no se puede reanudar.',
    'resume.takenOver': 'Otro dispositivo tomó esta sesión; esta página ya no le envía datos.',
    'camera.failed': 'No se pudo cargar el detector de postura de la cámara (necesita internet en este dispositivo): {message}. Puede usar la fuente Demo o reproducir una grabación.',
    'camera.noCamera': 'No se pudo abrir la cámara: {message}. Puede usar la fuente Demo o reproducir una grabación.',
    'hud.angle': 'Ángulo actual', 'hud.value': 'Valor actual', 'hud.height': 'Altura actual',
    'hud.rise': 'Elevación actual', 'hud.distance': 'Distancia actual',
    'hud.best': 'Mejor', 'hud.clean': 'Repeticiones válidas', 'hud.rejected': 'Rechazadas',
    'hud.hold': 'Mantener', 'hud.confidence': 'Confianza', 'hud.target': 'Objetivo', 'hud.lastRep': 'Última repetición',
    'hud.noRep': 'Aún no hay repeticiones.', 'hud.peak': 'pico {peak}', 'hud.cleanRep': 'válida', 'hud.baseline': 'Referencia',
    'hud.baselineProgress': '{percent} hecho',
    'hud.allGood': 'La posición es buena.',
    'hud.notVisible': 'Está fuera de la imagen: vuelva a ponerse a la vista.',
    'hud.missing': 'No se ve: {joints}. Asegúrese de que aparezcan en la imagen.',
    'chart.label': 'Valor medido en los últimos segundos',
    'chart.summary': 'Último {value} · mínimo {min} · máximo {max} en los últimos {seconds} s.',
    'chart.summaryEmpty': 'Aún no hay medida.',
    'feedback.label': 'Indicaciones',
    'summary.heading': 'Resumen de la sesión', 'summary.reps': 'Repeticiones válidas', 'summary.rejected': 'Repeticiones rechazadas',
    'summary.best': 'Mejor', 'summary.duration': 'Duración', 'summary.frames': 'Fotogramas',
    'summary.held': 'Mantenido', 'summary.heldValue': '{seconds} s (el más largo de {attempts})',
    'summary.visible': 'Visible', 'summary.faults': 'Errores', 'summary.open': 'Abrir en el historial',
    'summary.saving': 'Guardando la sesión…', 'summary.notStored': 'Esta sesión no se pudo guardar.',
    'event.repCompleted': 'Repetición {index}: {peak}. ¡Muy bien!',
    'event.repRejected': 'Repetición {index} no contada: {faults}',
    'event.holdStarted': 'Mantenga la posición…',
    'event.holdCompleted': '¡Posición mantenida!',
    'event.holdBroken': 'Se perdió la posición.',
    'event.holdEnded': 'Mantenida {seconds} s.', 'event.holdEndedCompleted': 'Mantenida {seconds} s: ¡muy bien!',
    'event.visible': 'Vuelve a estar a la vista.',
    'event.notVisible': 'Está fuera de la imagen.',
    'event.setupOk': 'La posición es buena.',
    'event.baselineCompleted': 'Referencia medida: {value}',
    'fault.keepUpperArmStill': 'Mantenga quieto el brazo',
    'fault.keepThighStill': 'Mantenga quieto el muslo',
    'fault.keepElbowStraight': 'Mantenga el codo recto',
    'fault.keepTrunkUpright': 'Mantenga el tronco erguido',
    'fault.keepShouldersLevel': 'Mantenga los hombros nivelados',
    'fault.keepKneeStraight': 'Mantenga la rodilla recta',
    'fault.keepHipsLevel': 'Mantenga las caderas niveladas',
    'fault.keepBodyStraight': 'Mantenga el cuerpo en línea recta',
    'setup.tooClose': 'Demasiado cerca: aléjese para que todo el cuerpo quepa en la imagen',
    'setup.tooFar': 'Demasiado lejos: acérquese a la cámara',
    'setup.notCentered': 'No está centrado: colóquese en el medio de la imagen',
    'setup.notFacing': 'Póngase de frente a la cámara',
    'setup.notSideways': 'Póngase de lado a la cámara',
    'setup.wrongPosture': 'Adopte la posición inicial del ejercicio',
    'history.heading': 'Historial de sesiones', 'history.subject': 'Paciente', 'history.exercise': 'Ejercicio',
    'history.from': 'Desde', 'history.to': 'Hasta', 'history.any': 'Cualquiera', 'history.status': 'Estado',
    'history.started': 'Inicio', 'history.reps': 'Repeticiones', 'history.empty': 'No hay sesiones que coincidan.',
    'history.page': 'Página {n}',
    'history.pageRange': 'Sesiones {first}–{last}', 'history.pageRangeOf': 'Sesiones {first}–{last} de {total}',
    'history.repCounts': '{clean} válidas, {rejected} rechazadas', 'history.subjectHint': 'basta con el principio del id',
    'history.repChart': 'Pico de cada repetición', 'history.seriesChart': 'Valor medido en el tiempo',
    'history.faultCounts': 'Errores', 'history.noFaults': 'Sin errores.', 'history.legendClean': 'válida',
    'history.legendRejected': 'rechazada', 'history.legendBaseline': 'referencia', 'history.legendTarget': 'objetivo',
    'history.confirmDelete': '¿Borrar la sesión {id}? No se puede deshacer.', 'history.deleted': 'Sesión {id} borrada.',
    'history.seriesText': 'Valor medido durante {seconds} s: de {min} a {max}, {reps} repeticiones marcadas.',
    'opt.motion': 'Movimiento del teléfono', 'motion.heading': 'Movimiento del teléfono (m/s²)',
    'motion.chartLabel': 'La aceleración del teléfono en sus ejes x, y y z durante los últimos 10 segundos',
    'motion.denied': 'Sensores de movimiento no permitidos: la sesión sigue sin ellos.',
    'motion.unavailable': 'Este navegador no da sensores de movimiento.',
    'motion.waiting': 'Esperando los sensores de movimiento del teléfono…',
    'motion.level': 'Movimiento {rms} m/s², temblor {tremor} %',
    'history.motionChart': 'Movimiento del teléfono (m/s²)', 'history.noMotion': 'Sin muestras de movimiento en esta sesión.',
    'history.smoothness': 'Suavidad', 'history.tremor': 'Temblor',
    'history.motionText': 'La aceleración del teléfono en x, y y z durante {seconds} s, de {min} a {max} m/s².',
    'history.repTable': 'Repeticiones', 'history.peak': 'Pico', 'history.trough': 'Valle', 'history.range': 'Recorrido',
    'history.duration': 'Duración', 'history.result': 'Resultado', 'history.noSubject': 'Sin paciente',
    'history.noReps': 'Sin repeticiones.',
    'history.notFound': 'Sesión no encontrada.', 'history.noSeries': 'No hay serie guardada.',
    'status.live': 'en vivo', 'status.finished': 'terminada', 'status.abandoned': 'abandonada',
    'watch.heading': 'Observar una sesión en vivo', 'watch.session': 'Id de la sesión', 'watch.following': 'Siguiendo la sesión {id} ({subject}, {exercise}).',
    'watch.ended': 'La sesión ha terminado.', 'watch.disconnected': 'Se perdió la conexión del paciente — esperando a que vuelva.', 'watch.pick': 'Sesiones en vivo:', 'watch.none': 'No hay sesiones en vivo ahora.',
    'watch.skeleton': 'La postura del paciente, en vivo', 'watch.waitingPose': 'Esperando la postura del paciente…',
    'unit.seconds': '{n} s',
    'unit.degrees': 'grados (°)', 'unit.segmentLengths': '% de {segment}', 'unit.note': 'Valores en {unit}.',
    'segment.trunk': 'la longitud del tronco', 'segment.upperArm': 'la longitud del brazo',
    'segment.forearm': 'la longitud del antebrazo', 'segment.thigh': 'la longitud del muslo',
    'segment.shank': 'la longitud de la pierna (rodilla a tobillo)', 'segment.shoulderLine': 'la anchura de hombros',
    'segment.hipLine': 'la anchura de caderas', 'segment.earLine': 'la anchura de la cabeza (de oreja a oreja)',
    'segment.pair': 'la distancia {a}–{b}', 'segment.unknown': 'la longitud de un segmento del cuerpo',
    'part.opposite': '{part} del otro lado',
    'exercise.sided': '{name}, lado {side}', 'sideName.left': 'izquierdo', 'sideName.right': 'derecho',
    'error.invalidJSON': 'El servidor no pudo leer lo que envió esta página.',
    'error.unknownType': 'El servidor no entendió un mensaje de esta página.',
    'error.invalidMessage': 'El servidor rechazó un valor que envió esta página.',
    'error.invalidPose': 'No se pudo leer una postura; se ha omitido.',
    'error.nonIncreasingTime': 'Una postura llegó fuera de orden; se ha omitido.',
    'error.messageTooBig': 'Lo que envió esta página es demasiado grande para el servidor.',
    'error.notStarted': 'La sesión no ha empezado.', 'error.alreadyStarted': 'La sesión ya había empezado.',
    'error.unknownExercise': 'El servidor no conoce este ejercicio (quizá se haya borrado).',
    'error.missingSide': 'Elija un lado para este ejercicio.',
    'error.unknownJoint': 'Las posturas nombran una articulación que el servidor no conoce; se deja fuera.',
    'error.unknownSession': 'El servidor no conoce esta sesión.',
    'error.invalidResume': 'El servidor rechazó reanudar esta sesión.',
    'error.resumeExpired': 'Esta sesión ya no se puede reanudar.',
    'error.rateLimited': 'Demasiados mensajes: el servidor frena esta página.',
    'error.storeUnavailable': 'El servidor no puede guardar ahora; inténtelo de nuevo en un momento.',
    'error.invalidExercise': 'La definición del ejercicio no es válida.',
    'error.notFound': 'El servidor no tiene ese elemento (quizá se haya borrado).',
    'error.methodNotAllowed': 'El servidor no permite hacer esto aquí.',
    'error.badRequest': 'El servidor no pudo leer lo que envió esta página.',
    'error.badHandshake': 'El servidor rechazó la conexión.',
    'error.unauthorized': 'Este servidor necesita un código de acceso: introdúzcalo en «Código de acceso».',
    'error.ambiguousCredentials': 'Se enviaron dos códigos de acceso a la vez; deje uno.',
    'error.hostNotAllowed': 'El servidor no responde en esta dirección.',
    'error.forbidden': 'Este código de acceso no permite hacer eso.',
    'error.originNotAllowed': 'El servidor no acepta peticiones desde la dirección de esta página.',
    'error.unsupportedMediaType': 'El servidor no pudo leer el formato de lo que envió esta página.',
    'error.invalidQuery': 'Un valor de la búsqueda no es válido.',
    'error.invalidCursor': 'Esta página de la lista ya no es válida: vuelva a empezar por la primera.',
    'error.notLive': 'La sesión ya no está en curso.',
    'error.sessionLive': 'La sesión sigue en curso: se puede borrar cuando haya terminado.',
    'error.tooManySessions': 'Hay demasiadas sesiones en curso; inténtelo más tarde.',
    'error.serverBusy': 'El servidor está ocupado; inténtelo de nuevo en un momento.',
    'error.exerciseExists': 'Ya existe un ejercicio con este id.',
    'error.builtinExercise': 'Los ejercicios incluidos no se pueden cambiar ni borrar.',
    'error.tooManyExercises': 'Esta clínica ya tiene todos los ejercicios que puede guardar: borre uno primero.',
    'error.tooManyVersions': 'Este ejercicio ya tiene todas las versiones que puede guardar.',
    'error.fileTooLarge': 'El archivo es demasiado grande para el servidor.',
    'error.internalError': 'Falló el servidor; inténtelo de nuevo.',
    'error.unreachable': 'No se pudo contactar con el servidor.',
    'error.field': '{field}: este valor no se acepta.',
    'error.range': '{field}: escriba un valor de {min} a {max}.',
    'error.above': '{field}: debe ser mayor que {other} ({value}).',
    'error.below': '{field}: debe ser menor que {other} ({value}).',
    'error.atLeast': '{field}: no debe ser menor que {other} ({value}).',
    'error.atMost': '{field}: no debe ser mayor que {other} ({value}).',
    'error.restPosition': 'la posición de reposo',
    'error.id': '{field}: use de 1 a 64 letras, cifras, «-» o «_».',
    'error.name': '{field}: dele un nombre de 1 a 100 caracteres, sin caracteres de control.',
    'error.measurement':
      '{field}: esta medida no se puede leer; revise su tipo, articulaciones y segmento (docs/exercises.md §2).',
  },
};

/** Names of joints, per language. */
const JOINT_NAMES = {
  en: { nose: 'nose', leftEye: 'left eye', rightEye: 'right eye', leftEar: 'left ear', rightEar: 'right ear',
    neck: 'neck', root: 'hips', leftShoulder: 'left shoulder', rightShoulder: 'right shoulder',
    leftElbow: 'left elbow', rightElbow: 'right elbow', leftWrist: 'left wrist', rightWrist: 'right wrist',
    leftHip: 'left hip', rightHip: 'right hip', leftKnee: 'left knee', rightKnee: 'right knee',
    leftAnkle: 'left ankle', rightAnkle: 'right ankle' },
  es: { nose: 'nariz', leftEye: 'ojo izquierdo', rightEye: 'ojo derecho', leftEar: 'oreja izquierda',
    rightEar: 'oreja derecha', neck: 'cuello', root: 'caderas', leftShoulder: 'hombro izquierdo',
    rightShoulder: 'hombro derecho', leftElbow: 'codo izquierdo', rightElbow: 'codo derecho',
    leftWrist: 'muñeca izquierda', rightWrist: 'muñeca derecha', leftHip: 'cadera izquierda',
    rightHip: 'cadera derecha', leftKnee: 'rodilla izquierda', rightKnee: 'rodilla derecha',
    leftAnkle: 'tobillo izquierdo', rightAnkle: 'tobillo derecho' },
};

/** Body parts as an exercise definition names them, relative to the working side (docs/exercises.md §2). */
const PART_NAMES = {
  en: { nose: 'nose', neck: 'neck', root: 'hip centre', eye: 'eye', ear: 'ear', shoulder: 'shoulder',
    elbow: 'elbow', wrist: 'wrist', hip: 'hip', knee: 'knee', ankle: 'ankle' },
  es: { nose: 'nariz', neck: 'cuello', root: 'centro de las caderas', eye: 'ojo', ear: 'oreja', shoulder: 'hombro',
    elbow: 'codo', wrist: 'muñeca', hip: 'cadera', knee: 'rodilla', ankle: 'tobillo' },
};

const STORAGE_KEY = 'motion.lang';
export const LANGUAGES = ['en', 'es'];

function initialLanguage() {
  const fromURL = new URLSearchParams(location.search).get('lang');
  if (fromURL && LANGUAGES.includes(fromURL)) return fromURL;
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && LANGUAGES.includes(stored)) return stored;
  } catch { /* storage may be unavailable */ }
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

let current = initialLanguage();
const listeners = new Set();

export function language() { return current; }

export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang) || lang === current) return;
  current = lang;
  try { localStorage.setItem(STORAGE_KEY, lang); } catch { /* ignore */ }
  apply();
  for (const f of listeners) f(lang);
}

export function onLanguageChange(f) { listeners.add(f); }

/** The text for `key` in the current language, with `{name}` placeholders filled from `params`. */
export function t(key, params) {
  let text = TABLE[current][key] ?? TABLE.en[key] ?? key;
  if (params) text = text.replace(/\{(\w+)\}/g, (m, name) => (params[name] ?? m));
  return text;
}

/** Whether the table has a text for `key` (in English at least). */
export const hasText = (key) => key in TABLE.en;

export const faultText = (raw) => t('fault.' + raw);
export const setupText = (raw) => t('setup.' + raw);
export const jointName = (raw) => JOINT_NAMES[current][raw] ?? raw;

/** A body part of a definition (`shoulder`, `opposite.hip`) in words. */
export function partName(raw) {
  const [first, second] = String(raw).split('.');
  if (first === 'opposite' && second) return t('part.opposite', { part: PART_NAMES[current][second] ?? second });
  return PART_NAMES[current][first] ?? raw;
}

// The exercises this page has seen (the catalog, and stored versions of exercises no longer in it), by id: what
// names an exercise that is known only by its id, as a stored session names it.
const knownExercises = new Map();

/**
 * Remembers exercise definitions for `exerciseName`. The catalog replaces what was known; a stored version
 * (`replace` false) only fills in an id the catalog does not have.
 */
export function rememberExercises(list, { replace = true } = {}) {
  for (const exercise of list || []) {
    if (exercise?.id && (replace || !knownExercises.has(exercise.id))) knownExercises.set(exercise.id, exercise);
  }
}

/**
 * An exercise's name in the page's language: a built-in one's from the server's `names`, a custom one's own
 * `name` (in its author's language); for an id, that of the exercise remembered under it, else the id.
 */
export function exerciseName(exercise) {
  if (!exercise) return '';
  const e = typeof exercise === 'string' ? knownExercises.get(exercise) ?? { id: exercise } : exercise;
  return e.names?.[current] || e.name || e.id;
}

/** The exercise's name with the side a session worked, if any: "Heel slide (lying), right side". */
export function sessionExerciseName(exercise, side) {
  const name = exerciseName(exercise);
  return side ? t('exercise.sided', { name, side: t('sideName.' + side) }) : name;
}

/** Fills every `[data-i18n]` element's text (and `[data-i18n-label]` aria-label, `[data-i18n-placeholder]`
 * placeholder) from the table. */
export function apply(root = document) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
}

/** Wires a `<select>` to switch the language. */
export function bindLanguageSelect(select) {
  if (!select) return;
  select.value = current;
  select.addEventListener('change', () => setLanguage(select.value));
  onLanguageChange((l) => { select.value = l; });
}
