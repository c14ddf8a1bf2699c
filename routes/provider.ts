/**
 * `GET /v1/providers/{npi}`: one provider record.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { defineQuery } from "../lib/http/params.ts";
import { NotFoundError, ValidationError } from "../lib/http/errors.ts";
import { jsonText } from "../lib/http/json.ts";
import { isValidNpi } from "../lib/npi.ts";
import { ref } from "../lib/api/schemas.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import { NPI_PATH_PARAM } from "../lib/api/npi_param.ts";

/** The provider route over `dataset`. */
export function providerRoute(dataset: Dataset): Route {
  return {
    path: "/v1/providers/:npi",
    methods: {
      GET: endpoint({
        operationId: "getProvider",
        summary: "One provider by NPI",
        description:
          'The full record. A deactivated NPI is known: 200 with `"status": "deactivated"`.',
        tags: ["providers"],
        pathParams: { npi: NPI_PATH_PARAM },
        query: defineQuery({}),
        responses: {
          "200": { description: "The provider", schema: ref("Provider") },
          "400": {
            description: "Malformed NPI (not 10 digits, or a wrong check digit)",
            contentType: "application/problem+json",
            schema: ref("Problem"),
          },
          "404": {
            description: "No provider has this NPI",
            contentType: "application/problem+json",
            schema: ref("Problem"),
          },
        },
      }, (_request, ctx) => {
        const npi = ctx.params.npi ?? "";
        if (!/^\d{10}$/.test(npi)) {
          throw new ValidationError([{
            parameter: "npi",
            message: `must be 10 digits, got '${npi.slice(0, 20)}'`,
          }]);
        }
        if (!isValidNpi(npi)) {
          throw new ValidationError([{
            parameter: "npi",
            message: `'${npi}' fails the NPI check digit`,
          }]);
        }
        const text = dataset.store().providerJson(npi);
        if (text === null) throw new NotFoundError(`No provider has NPI '${npi}'`);
        return jsonText(text);
      }),
    },
  };
}
