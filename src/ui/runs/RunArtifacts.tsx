/**
 * The files the selected run's nodes produced (trained models): name, node,
 * size and digest, and a download that hands over the bytes only once they
 * hash to the recorded digest — a mismatch is an alert naming the artifact,
 * not a file. An imported run has no bytes to give (run files carry an
 * artifact's metadata only), and says so instead of offering a download.
 */
import { formatBytes } from '../../core/programs/pool';
import { artifactFileName, verifiedArtifactBytes } from '../../core/run/artifact-bytes';
import {
  isTrainedModel,
  trainedModelFile,
  trainedModelFileName,
} from '../../core/run/model-download';
import type { RunRow } from '../../core/run/record';
import { artifactListOfRun, readArtifact, type ArtifactListing } from '../../db/artifacts';
import { live } from '../../db/live';
import { db } from '../db';
import { saveBlob } from '../files';
import { useLive } from '../live';
import { useEditorStore } from '../store/context';
import { shortId } from './format';
import './run-record.css';

export function RunArtifacts({ run }: { run: RunRow }) {
  const store = useEditorStore();
  const artifacts = useLive(() => live(() => artifactListOfRun(db, run.id)), [run.id]);
  if (!artifacts || artifacts.length === 0) return null;

  const download = async (artifact: ArtifactListing) => {
    try {
      const stored = await readArtifact(db, run.id, artifact.name);
      if (!stored) {
        store.getState().alert(`artifact '${artifact.name}' of run ${run.id} is no longer stored`);
        return;
      }
      const bytes = await verifiedArtifactBytes(stored);
      saveBlob(
        `${shortId(run.id)}-${artifactFileName(stored)}`,
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: stored.mediaType }),
      );
    } catch (error) {
      store.getState().alertError(error);
    }
  };

  const downloadModel = async (artifact: ArtifactListing) => {
    try {
      const stored = await readArtifact(db, run.id, artifact.name);
      if (!stored) {
        store.getState().alert(`artifact '${artifact.name}' of run ${run.id} is no longer stored`);
        return;
      }
      const bytes = await trainedModelFile(stored, run);
      saveBlob(
        trainedModelFileName(shortId(run.id), stored.node),
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: stored.mediaType }),
      );
    } catch (error) {
      store.getState().alertError(error);
    }
  };

  const withoutBytes = artifacts.some((a) => !a.hasBytes);
  const models = artifacts.filter((a) => a.hasBytes && isTrainedModel(a));
  return (
    <section aria-label="Artifacts" className="fb-run-part">
      <h3>Artifacts</h3>
      <table aria-label="Artifacts" className="fb-run-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Node</th>
            <th scope="col">Size</th>
            <th scope="col">Digest</th>
            <th scope="col">File</th>
          </tr>
        </thead>
        <tbody>
          {artifacts.map((artifact) => (
            <tr key={artifact.name}>
              <th scope="row">{artifact.name}</th>
              <td>{artifact.node}</td>
              <td title={`${artifact.size} bytes`}>{formatBytes(artifact.size)}</td>
              <td>
                <code className="fb-digest">{artifact.digest}</code>
              </td>
              <td>
                {artifact.hasBytes ? (
                  <button
                    type="button"
                    aria-label={`Download ${artifact.name}`}
                    onClick={() => void download(artifact)}
                  >
                    Download
                  </button>
                ) : (
                  <span className="fb-muted">no bytes here</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {models.length > 0 && (
        <ul aria-label="Trained models" className="fb-run-models">
          {models.map((artifact) => (
            <li key={`${artifact.node}/${artifact.name}`}>
              <button
                type="button"
                aria-label={`Download model (.onnx) from ${artifact.node}`}
                onClick={() => void downloadModel(artifact)}
              >
                Download model (.onnx)
              </button>{' '}
              <span className="fb-muted">
                trained by {artifact.node}: raw feature rows in, standardisation applied inside
              </span>
            </li>
          ))}
        </ul>
      )}
      {withoutBytes && (
        <p className="fb-muted">
          This run was imported: run files carry each artifact&apos;s name, size and digest, not its
          bytes, so there is nothing to download.
        </p>
      )}
    </section>
  );
}
