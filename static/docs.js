// Starts Swagger UI (vendored in /static/vendor/swagger-ui-dist) on this
// server's own OpenAPI document. Kept out of docs.html: the CSP forbids
// inline scripts.
"use strict";

globalThis.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  if (typeof globalThis.SwaggerUIBundle !== "function") {
    root.textContent = "The API reference could not be loaded: read /openapi.json instead.";
    return;
  }
  globalThis.ui = globalThis.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [globalThis.SwaggerUIBundle.presets.apis],
    // Nothing leaves this origin: no online validator badge.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    filter: false,
    syntaxHighlight: { activated: true, theme: "agate" },
  });
});
