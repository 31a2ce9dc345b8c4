extension Exercise {
    /// The languages the built-in entries are named in: English, the language of ``name``, and Spanish.
    public static let catalogLanguages = ["en", "es"]

    /// The built-in entries' names by id, in the order of ``catalogLanguages``: the English one is the entry's
    /// ``name``. Clinical usage over literal translation: `sitToStand` is "Sentarse y levantarse", as the test of
    /// that name is known in Spanish.
    static let catalogNames: [String: [String]] = [
        "elbowFlexion": ["Elbow flexion", "Flexión de codo"],
        "shoulderFlexion": ["Shoulder flexion", "Flexión de hombro"],
        "shoulderAbduction": ["Shoulder abduction", "Abducción de hombro"],
        "shoulderAbductionHold": ["Shoulder abduction hold", "Abducción de hombro mantenida"],
        "hipAbduction": ["Hip abduction", "Abducción de cadera"],
        "kneeExtension": ["Seated knee extension", "Extensión de rodilla sentado"],
        "squat": ["Squat", "Sentadilla"],
        "ankleDorsiflexion": ["Ankle dorsiflexion (knee to wall)", "Dorsiflexión de tobillo (rodilla a la pared)"],
        "shoulderExternalRotation": [
            "Shoulder external rotation at 90° abduction", "Rotación externa de hombro a 90° de abducción",
        ],
        "wallSlide": ["Wall slide", "Deslizamiento en la pared"],
        "cervicalLateralFlexion": ["Neck side bend", "Inclinación lateral del cuello"],
        "trunkLateralFlexion": ["Trunk side bend", "Inclinación lateral del tronco"],
        "standingHipFlexion": ["Standing hip flexion (march)", "Flexión de cadera de pie (marcha)"],
        "standingKneeFlexion": [
            "Standing knee flexion (hamstring curl)", "Flexión de rodilla de pie (curl de isquiotibiales)",
        ],
        "heelRaise": ["Heel raise", "Elevación de talones"],
        "miniSquat": ["Mini squat", "Minisentadilla"],
        "lunge": ["Lunge (split squat)", "Zancada (sentadilla dividida)"],
        "sitToStand": ["Sit-to-stand", "Sentarse y levantarse"],
        "heelSlide": ["Heel slide (lying)", "Deslizamiento de talón (tumbado)"],
        "straightLegRaise": ["Straight-leg raise (lying)", "Elevación de pierna recta (tumbado)"],
        "gluteBridge": ["Glute bridge", "Puente de glúteos"],
        "gluteBridgeHold": ["Glute bridge hold", "Puente de glúteos mantenido"],
        "plankHold": ["Plank", "Plancha"],
        "sidePlankHold": ["Side plank", "Plancha lateral"],
    ]

    /// The entry's name in each of ``catalogLanguages``, in that order, for a built-in entry; empty for a custom one,
    /// whose ``name`` is in its author's language.
    public var localizedNames: [(language: String, name: String)] {
        guard isBuiltin, let names = Self.catalogNames[id] else { return [] }
        return Array(zip(Self.catalogLanguages, names))
    }
}
