/**
 * The confusion matrices the selected run's evaluations kept, each drawn as
 * a labelled heat map: a table whose rows are the true classes and columns
 * the predicted ones, each cell its count, shaded by its share of its row
 * (so a rare class's mistakes show as plainly as a common one's). A table
 * rather than a canvas, so a screen reader reads the counts.
 */
import {
  CONFUSION_MEDIA_TYPE,
  readConfusion,
  type ConfusionFile,
} from '../../core/catalog/confusion';
import type { RunRow } from '../../core/run/record';
import { artifactListOfRun, readArtifact } from '../../db/artifacts';
import { live } from '../../db/live';
import { db } from '../db';
import { useLive } from '../live';
import './run-record.css';

/** One matrix and the node that kept it. */
interface Kept {
  node: string;
  confusion: ConfusionFile;
}

async function confusionsOf(run: RunRow): Promise<Kept[]> {
  const listed = await artifactListOfRun(db, run.id);
  const kept: Kept[] = [];
  for (const artifact of listed) {
    if (artifact.mediaType !== CONFUSION_MEDIA_TYPE || !artifact.hasBytes) continue;
    const stored = await readArtifact(db, run.id, artifact.name);
    const confusion = stored?.bytes ? readConfusion(stored.bytes) : null;
    if (confusion) kept.push({ node: artifact.node, confusion });
  }
  return kept;
}

function HeatMap({ node, confusion }: Kept) {
  const { classes, matrix } = confusion;
  return (
    <table className="fb-confusion" aria-label={`Confusion matrix: ${node}`}>
      <caption>
        Confusion matrix of <code>{node}</code>: rows are true classes, columns predicted
      </caption>
      <thead>
        <tr>
          <td />
          {classes.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {matrix.map((row, a) => {
          const total = row.reduce((s, n) => s + n, 0);
          return (
            <tr key={classes[a]}>
              <th scope="row">{classes[a]}</th>
              {row.map((count, p) => {
                const share = total > 0 ? count / total : 0;
                const hue = a === p ? 140 : 8; // green on the diagonal, red off it
                return (
                  <td
                    key={p}
                    title={`true ${classes[a]}, predicted ${classes[p]}: ${count}`}
                    // Never darker than 52 % lightness, so black text keeps a 4.5:1 contrast.
                    style={{ background: `hsl(${hue} 60% ${Math.round(97 - 45 * share)}%)` }}
                  >
                    {count}
                  </td>
                );
              })}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function ConfusionMatrices({ run }: { run: RunRow }) {
  const kept = useLive(() => live(() => confusionsOf(run)), [run.id, run.status]);
  if (!kept || kept.length === 0) return null;
  return (
    <section aria-label="Confusion matrices" className="fb-run-part">
      <h3>Confusion matrices</h3>
      {kept.map((k) => (
        <HeatMap key={k.node} {...k} />
      ))}
    </section>
  );
}
